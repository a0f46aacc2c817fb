from django.urls import path

from canvasweb.common.converters import register

from . import views

register()

urlpatterns = [
    path("canvases/<dbid:canvas_id>/conversations/", views.ConversationListView.as_view()),
    path("canvases/<dbid:canvas_id>/context-preview/", views.context_preview_view),
    path("conversations/<dbid:conversation_id>/messages/", views.MessageListView.as_view()),
    path("conversations/<dbid:conversation_id>/suggestions/", views.SuggestionListView.as_view()),
    path("model-requests/<dbid:request_id>/", views.ModelRequestView.as_view()),
    path("suggestions/<dbid:suggestion_id>/accept/", views.SuggestionAcceptView.as_view()),
    path("suggestions/<dbid:suggestion_id>/dismiss/", views.SuggestionDismissView.as_view()),
    path("llm/", views.LLMStatusView.as_view()),
]
