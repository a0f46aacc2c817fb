def canvas_group(canvas_id: int) -> str:
    """Channel-layer group for one canvas (ASCII, < 100 chars, as Channels requires)."""
    return f"canvas.{int(canvas_id)}"
