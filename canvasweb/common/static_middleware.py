"""WhiteNoise, able to run in an async middleware chain.

WhiteNoise's middleware is sync only, and one sync middleware makes Django run everything below it
(the views included) on the thread that Channels also uses for every socket's database work. With
this one the chain stays async, so an async view (the context preview, which waits for a compile
worker) can wait without holding that thread.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any = None) -> None:
        super().__init__(get_response)
        self._is_async = iscoroutinefunction(get_response)
        if self._is_async:
            markcoroutinefunction(self)

    def __call__(self, request: Any) -> Any:
        if self._is_async:
            return self.__acall__(request)
        return super().__call__(request)

    async def __acall__(self, request: Any) -> Any:
        static_file = (
            self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        )
        if static_file is not None:
            return self.serve(static_file, request)  # opens the file and builds headers: no waiting
        return await self.get_response(request)
