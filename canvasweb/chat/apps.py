from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "canvasweb.chat"
    label = "chat"

    def ready(self) -> None:
        # A budget that cannot hold the system layer is a configuration error at
        # start-up, not a surprise at the first chat request.
        from django.conf import settings
        from django.core.exceptions import ImproperlyConfigured

        from canvasweb.context.tokens import count_tokens

        from .prompts import SYSTEM_PROMPT

        llm = settings.LLM
        budget = llm["CONTEXT_WINDOW"] - llm["MAX_OUTPUT_TOKENS"]
        needed = count_tokens(SYSTEM_PROMPT) + 64  # system layer + question overhead and a minimal question
        if budget < needed:
            raise ImproperlyConfigured(
                f"LLM_CONTEXT_WINDOW ({llm['CONTEXT_WINDOW']}) minus LLM_MAX_OUTPUT_TOKENS "
                f"({llm['MAX_OUTPUT_TOKENS']}) leaves {budget} tokens for the prompt, but the system layer alone "
                f"needs {needed}. Raise LLM_CONTEXT_WINDOW or lower LLM_MAX_OUTPUT_TOKENS."
            )
