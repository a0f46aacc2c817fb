"""Agent REST routes, mounted at /api/ before the canvases API (reference: docs/api.md, "Agent proposals")."""

from django.urls import path
from django.urls.converters import get_converters

from canvasweb.common.converters import register

from . import views

if "dbid" not in get_converters():  # normally registered already by the routes included before these
    register()

app_name = "agent_api"

urlpatterns = [
    path("canvases/<dbid:canvas_id>/proposals/", views.ProposalListView.as_view(), name="proposal-list"),
    path(
        "proposals/<dbid:proposal_id>/approve/", views.ProposalApproveView.as_view(), name="proposal-approve"
    ),
    path("proposals/<dbid:proposal_id>/reject/", views.ProposalRejectView.as_view(), name="proposal-reject"),
]
