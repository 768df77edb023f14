"""The settings of a run: parser, features, model and resources, as one frozen value."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from aesi_lib.model.config import ModelConfig
from aesi_lib.model.features import FeatureOptions
from aesi_lib.model.similarity import SimilarityOptions
from aesi_lib.parse.backends import ParserConfig


@dataclass(frozen=True)
class RunConfig:
    """Every setting of a run; its hash names cached results and the run directory."""

    parser: ParserConfig = field(default_factory=ParserConfig)
    features: FeatureOptions = field(default_factory=FeatureOptions)
    model: ModelConfig = field(default_factory=ModelConfig)
    vectors_path: str | None = None
    wordnet_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(asdict(self), default=str))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        model = dict(data.get("model", {}))
        model["similarity"] = SimilarityOptions(**model.get("similarity", {}))
        return cls(parser=ParserConfig(**data.get("parser", {})),
                   features=FeatureOptions(**data.get("features", {})),
                   model=ModelConfig(**model),
                   vectors_path=data.get("vectors_path"),
                   wordnet_path=data.get("wordnet_path"))

    def digest(self) -> str:
        return config_digest(self.to_dict())


def config_digest(data: Any) -> str:
    """Short stable hash of a JSON-able value."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
