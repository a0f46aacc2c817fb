"""Pure context compiler: plain data in, token-budgeted chat messages + report out.

No Django and no ORM in this package (see README.md here). Main entry points:

    from canvasweb.context import CompileRequest, compile_context, CanvasIndex, TokenCache
"""

from .compiler import compile_context
from .selection import CanvasIndex, naive_linear_select, select_nodes
from .tokens import TokenCache, count_tokens
from .types import (
    Budget,
    BudgetConfigError,
    CompiledContext,
    CompileReport,
    CompileRequest,
    EdgeData,
    MessageData,
    NodeData,
    SelectionConfig,
    Viewport,
)

__all__ = [
    "Budget",
    "BudgetConfigError",
    "CanvasIndex",
    "CompileReport",
    "CompileRequest",
    "CompiledContext",
    "EdgeData",
    "MessageData",
    "NodeData",
    "SelectionConfig",
    "TokenCache",
    "Viewport",
    "compile_context",
    "count_tokens",
    "naive_linear_select",
    "select_nodes",
]
