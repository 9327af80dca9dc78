"""OnnxReranker: a model directory under the root the deployment gives, its tokenizer (a real
one, built here: nothing is downloaded) and a session standing in for onnxruntime's (no ONNX
model can be built here without the onnx package): which directories it refuses, what pairs
it feeds the model, and how logits become scores."""

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, processors

from agent_memory.adapters.rerank.onnx import MODEL_FILE, TOKENIZER_FILE, OnnxReranker
from agent_memory.domain.search import RerankFailed

pytestmark = pytest.mark.unit

VOCAB = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "zebra": 4, "stripes": 5, "horse": 6}


def write_model(directory: Path) -> None:
    """A cross-encoder's files: a WordLevel tokenizer pairing (query, document) as BERT does,
    and a model file the fake session stands in for."""
    directory.mkdir(parents=True)
    tokenizer = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tokenizer.save(str(directory / TOKENIZER_FILE))
    (directory / MODEL_FILE).write_bytes(b"stand-in")


class Input:
    def __init__(self, name: str) -> None:
        self.name = name


class ZebraSession:
    """Scores a pair by the zebras in its second segment (token type 1), as [batch, columns]
    logits; records each feed."""

    def __init__(self, columns: int = 1, inputs=("input_ids", "attention_mask", "token_type_ids")):
        self.columns = columns
        self.inputs = inputs
        self.feeds: list[dict[str, np.ndarray]] = []

    def get_inputs(self):
        return [Input(n) for n in self.inputs]

    def run(self, _outputs, feeds):
        self.feeds.append(feeds)
        second = feeds.get("token_type_ids", np.ones_like(feeds["input_ids"]))
        zebras = ((feeds["input_ids"] == VOCAB["zebra"]) & (second == 1)).sum(axis=1)
        logits = np.stack([-zebras, zebras], axis=1)[:, -self.columns :].astype(np.float32)
        return [logits]


@pytest.fixture
def root(tmp_path):
    write_model(tmp_path / "models" / "cross-encoder" / "tiny")
    return tmp_path / "models"


@pytest.mark.parametrize("columns", [1, 2])
def test_each_pair_is_scored_by_the_models_relevance_logit(root, columns):
    # Given a cross-encoder whose session answers one logit a pair (or two: the last is relevance)
    session = ZebraSession(columns)
    reranker = OnnxReranker(root, session_factory=lambda path: session)
    # When documents are scored against a query
    scores = reranker.score(
        "cross-encoder/tiny", "zebra", ["horse", "zebra stripes", "zebra zebra"]
    )
    # Then each document's score is its logit, in the order given
    assert list(scores.scores) == [0.0, 1.0, 2.0]
    # And the model read (query, document) pairs, padded to the longest, with their token types
    (feed,) = session.feeds
    assert feed["input_ids"].shape == (3, 6)
    assert feed["input_ids"][2].tolist() == [2, 4, 3, 4, 4, 3]
    assert feed["token_type_ids"][2].tolist() == [0, 0, 0, 1, 1, 1]
    assert scores.input_tokens == int(feed["attention_mask"].sum()) == 5 + 6 + 6


def test_a_model_without_token_types_is_not_fed_them_and_is_loaded_once(root):
    session = ZebraSession(inputs=("input_ids", "attention_mask"))
    loads = []
    reranker = OnnxReranker(root, session_factory=lambda path: loads.append(path) or session)
    reranker.score("cross-encoder/tiny", "q", ["zebra"])
    reranker.score("cross-encoder/tiny", "q", ["zebra"])
    assert "token_type_ids" not in session.feeds[0]
    assert loads == [root.resolve() / "cross-encoder" / "tiny" / MODEL_FILE]


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("../outside", "not a directory under"),
        ("cross-encoder/missing", "no model.onnx or tokenizer.json"),
        ("cross-encoder", "no model.onnx or tokenizer.json"),
    ],
)
def test_a_model_outside_the_root_or_incomplete_is_refused(root, model, message):
    (root.parent / "outside").mkdir()
    reranker = OnnxReranker(root, session_factory=lambda path: ZebraSession())
    with pytest.raises(RerankFailed, match=message):
        reranker.score(model, "q", ["zebra"])


def test_a_model_file_onnxruntime_cannot_read_is_refused(root):
    # The real loader, on a file that is not an ONNX model
    reranker = OnnxReranker(root)
    with pytest.raises(RerankFailed, match="would not load"):
        reranker.score("cross-encoder/tiny", "q", ["zebra"])


def test_a_model_that_is_not_a_cross_encoder_is_refused(root):
    wrong_inputs = ZebraSession(inputs=("pixel_values",))
    with pytest.raises(RerankFailed, match="not input_ids and attention_mask"):
        OnnxReranker(root, session_factory=lambda path: wrong_inputs).score(
            "cross-encoder/tiny", "q", ["zebra"]
        )

    class Embeddings(ZebraSession):
        def run(self, _outputs, feeds):
            return [np.zeros((len(feeds["input_ids"]), 4, 8), dtype=np.float32)]

    with pytest.raises(RerankFailed, match="not a cross-encoder"):
        OnnxReranker(root, session_factory=lambda path: Embeddings()).score(
            "cross-encoder/tiny", "q", ["zebra"]
        )
