from django.urls import path, re_path

from . import views

urlpatterns = [
    path("chat/completions", views.chat_completions),
    path("models", views.models),
    path("models/<str:model>", views.models),
    re_path(r"^(?P<rest>.*)$", views.not_found),
]
