"""Field helpers shared by the API's serializers: named enum components and free-form JSON."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers


class EnumField(serializers.CharField):
    """A string limited to `values`; documented as its own named schema component."""

    def __init__(self, values: Iterable[Any], *, component: str, **kwargs: Any) -> None:
        self.enum_values = [getattr(v, "value", v) for v in values]
        self.enum_component = component
        super().__init__(**kwargs)


# drf-spectacular ships py.typed but leaves OpenApiGeneratorExtension.__init_subclass__ unannotated.
class EnumFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    # Named components keep our enums out of drf-spectacular's global enum naming, where a
    # field called e.g. `role` or `kind` elsewhere in the project would collide with ours.
    target_class = EnumField

    def get_name(self) -> str:
        return str(self.target.enum_component)

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.target.enum_values)}


def enum(values: Iterable[Any], component: str, **kwargs: Any) -> EnumField:
    return EnumField(values, component=component, **kwargs)


def any_json(**kwargs: Any) -> serializers.JSONField:
    return serializers.JSONField(**kwargs)
