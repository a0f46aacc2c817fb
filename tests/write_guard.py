"""A guard that fails any test in which a canvas row is written outside the write path.

Installed for every test by tests/conftest.py. Rows of these models may only be
saved or deleted while `canvasweb/canvases/services.py` is on the call stack.
"""
from __future__ import annotations

import sys

from django.db.models.signals import pre_delete, pre_save

WRITE_PATH_FILES = ("canvasweb/canvases/services.py",)
GUARDED_MODELS = ("canvases.Canvas", "canvases.Membership", "canvases.Node", "canvases.Edge",
                  "canvases.OpReceipt", "history.ChangeLogEntry")


class WriteOutsideServiceError(AssertionError):
    pass


def _called_from_write_path() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.replace("\\", "/").endswith(WRITE_PATH_FILES):
            return True
        frame = frame.f_back
    return False


def _guard(sender, instance, **kwargs):
    if not _called_from_write_path():
        raise WriteOutsideServiceError(
            f"{sender.__name__} row written outside canvasweb/canvases/services.py"
        )


def install() -> list:
    from django.apps import apps

    models = [apps.get_model(label) for label in GUARDED_MODELS]
    for model in models:
        pre_save.connect(_guard, sender=model, dispatch_uid=f"write-guard-save-{model.__name__}")
        pre_delete.connect(_guard, sender=model, dispatch_uid=f"write-guard-delete-{model.__name__}")
    return models


def uninstall(models: list) -> None:
    for model in models:
        pre_save.disconnect(sender=model, dispatch_uid=f"write-guard-save-{model.__name__}")
        pre_delete.disconnect(sender=model, dispatch_uid=f"write-guard-delete-{model.__name__}")
