from django.urls import path

from . import views

urlpatterns = [
    path("canvases/<int:canvas_id>/conversations/", views.ConversationListView.as_view()),
    path("canvases/<int:canvas_id>/context-preview/", views.ContextPreviewView.as_view()),
    path("conversations/<int:conversation_id>/messages/", views.MessageListView.as_view()),
    path("model-requests/<int:request_id>/", views.ModelRequestView.as_view()),
    path("suggestions/<int:suggestion_id>/accept/", views.SuggestionAcceptView.as_view()),
    path("suggestions/<int:suggestion_id>/dismiss/", views.SuggestionDismissView.as_view()),
    path("llm/", views.LLMStatusView.as_view()),
]
