"""An agent's manifest (its harness: memory, history, tools) and the named manifests agents follow."""

# What other capabilities use: they import these names from the package, never its modules.
from .manifest import (
    EveryMessages,
    Manifest,
    MemoryConfig,
    RerankConfig,
    check_label_numbers,
    scope_list,
)
from .named_manifests import FOLLOWS, NamedManifest, NamedManifestVersion, validate_manifest_name

__all__ = [
    "FOLLOWS",
    "EveryMessages",
    "Manifest",
    "MemoryConfig",
    "NamedManifest",
    "NamedManifestVersion",
    "RerankConfig",
    "check_label_numbers",
    "scope_list",
    "validate_manifest_name",
]
