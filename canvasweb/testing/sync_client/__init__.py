"""A Python implementation of the client rules of docs/protocol.md, for tests and the reliability suite.

- client.py: `SyncClient`, the rules themselves (no I/O of its own; its docstring lists them);
- documents.py: applying node and edge changes to a document, `document_diff`;
- runners.py: `WebSocketRunner` (real sockets) and `CommunicatorRunner` (channels' communicator).
"""

from .client import TRANSIENT_REJECTS, AckRecord, SyncClient, Transport
from .documents import dangling_edges, document_diff
from .runners import CommunicatorRunner, WebSocketRunner, all_settled, wait_until

__all__ = [
    "TRANSIENT_REJECTS",
    "AckRecord",
    "CommunicatorRunner",
    "SyncClient",
    "Transport",
    "WebSocketRunner",
    "all_settled",
    "dangling_edges",
    "document_diff",
    "wait_until",
]
