"""The shipped check-worthiness model: artifact, scorer arithmetic, training helpers, dev-test F1."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import pipeline.nlp.checkworthiness as checkworthiness
from pipeline.distillation import augment, fold_assignment, text_key
from pipeline.nlp.checkworthiness import TFIDF_OPTIONS, Scorer, StudentCNN, read_artifact
from pipeline.nlp.claim_features import FEATURE_NAMES, feature_matrix
from pipeline.student import MAX_PIECES, piece_ids, tables_logit
from pipeline.training import (
    EVAL_FILE,
    Labelled,
    best_threshold,
    bootstrap_f1_interval,
    choose_threshold,
    evaluate,
    load_teacher_logits,
    mean_f1,
    read_news_labels,
    teacher_logits_path,
)
from tests.conftest import ROOT, SHARED_DATA

CT24 = SHARED_DATA / "checkthat2024_task1_en"
SENTENCES = [
    "ICE detained nearly 1,500 people.",
    "Thank you.",
    "The U.S. economy grew 3.5% in 2019, said Mr. Smith — the fastest in a decade.",
    "Ünïcödé résumé 100% $5bn!",
    "Hello\u00a0world\u2009thin spaces\u3000and\tTABS\nnewlines",
    "control\x1cchars\x0bare\x85deleted",
    "zero\u200bwidth joiner",
    "日本語のテキスト and English",
    "don't won't can't",
    "word",
    "x " * 200,
    "antidisestablishmentarianism " * 30,
]


@pytest.fixture(scope="module")
def artifact() -> checkworthiness.Artifact:
    return read_artifact()


def reference_logits(artifact: checkworthiness.Artifact, texts: list[str]) -> np.ndarray:
    """The student's arithmetic written plainly, on WordPieces of the whole sentence."""
    from tokenizers import Tokenizer

    arrays = np.load(io.BytesIO(artifact.files["model.npz"]))
    embedding = arrays["embedding_int8"].astype(np.float32) * arrays["embedding_scale"][:, None]
    kernel = arrays["conv_weight"]
    tables = np.stack([embedding @ kernel[:, :, k].T for k in range(3)]).astype(np.float64)
    tokenizer = Tokenizer.from_str(artifact.files["tokenizer.json"].decode())
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tables_logit(tables, arrays["conv_bias"], arrays["out_weight"], float(arrays["out_bias"]), piece_ids(tokenizer, texts))


def test_artifact_names_its_training_data_and_leaves_dev_test_out(artifact: checkworthiness.Artifact) -> None:
    metadata = artifact.metadata
    assert all(EVAL_FILE not in name for name in metadata["data_files_used"])
    assert any("CT24_checkworthy_english_train.tsv" in name for name in metadata["data_files_used"])
    assert 0.0 < metadata["threshold"] < 1.0
    assert metadata["student"]["max_pieces"] == MAX_PIECES
    assert sum(len(data) for data in artifact.files.values()) < 6_000_000


def test_cnn_equals_the_plain_arithmetic_on_whole_sentence_wordpieces(artifact: checkworthiness.Artifact) -> None:
    seeds = [line for path in sorted((ROOT / "seeds").glob("*.txt")) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    texts = SENTENCES + seeds
    got = StudentCNN(artifact).student_decision(texts)
    np.testing.assert_allclose(got, reference_logits(artifact, texts), atol=1e-4)


def test_head_is_a_logistic_regression_over_ngrams_cnn_features_and_cues(artifact: checkworthiness.Artifact) -> None:
    """The head written plainly: scikit-learn's TF-IDF with the shipped vocabulary and idf,
    the CNN's pooled features, the sentence cues, one weight vector."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = SENTENCES + ["MassLive reporter Tréa Lavery contributed to this story.", "Crime rose 20% in Boston last year, police said."]
    arrays = np.load(io.BytesIO(artifact.files["head.npz"]))
    vocabulary = json.loads(artifact.files["head_vocabulary.json"])
    vectorizer = TfidfVectorizer(vocabulary=vocabulary, **TFIDF_OPTIONS)
    vectorizer.idf_ = arrays["idf"]
    expected = (
        float(arrays["bias"])
        + vectorizer.transform(texts).toarray() @ arrays["tfidf_weight"]
        + StudentCNN(artifact).pooled(texts) @ arrays["cnn_weight"]
        + feature_matrix(texts) @ arrays["feature_weight"]
    )
    np.testing.assert_allclose(Scorer(artifact).decision_function(texts), expected, atol=1e-9)
    assert artifact.metadata["head"]["feature_names"] == list(FEATURE_NAMES)


def test_long_sentences_are_cut_at_max_pieces_in_the_cnn(artifact: checkworthiness.Artifact) -> None:
    cnn = StudentCNN(artifact)
    long = "the committee said " * 100
    np.testing.assert_array_equal(cnn.pooled([long]), cnn.pooled([long + " and more words at the end"]))


def test_scores_do_not_depend_on_batch_or_cache(artifact: checkworthiness.Artifact, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bit for bit: the CLI scores article by article, the Spark job per Arrow batch."""
    seeds = [line for path in sorted((ROOT / "seeds").glob("*.txt")) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    texts = SENTENCES + seeds
    batch = Scorer(artifact).score(texts)
    one_by_one = np.array([Scorer(artifact).score([s])[0] for s in texts])
    np.testing.assert_array_equal(batch, one_by_one)
    scorer = Scorer(artifact)
    chunks = np.concatenate([scorer.score(texts[start : start + 7]) for start in range(0, len(texts), 7)])
    np.testing.assert_array_equal(chunks, batch)
    monkeypatch.setattr(checkworthiness, "MAX_CACHED_TYPES", 5)
    small_cache = Scorer(artifact)
    again = np.concatenate([small_cache.score(SENTENCES[:6]), small_cache.score(SENTENCES[6:])])
    np.testing.assert_array_equal(again, batch[: len(SENTENCES)])
    assert len(small_cache.cnn._type_id) <= 5 + len({t for s in SENTENCES[6:] for t in s.split()})


def test_blank_input_scores_zero_and_bad_input_is_refused(artifact: checkworthiness.Artifact) -> None:
    scorer = Scorer(artifact)
    assert scorer.score([]).shape == (0,)
    assert list(scorer.score(["", "   ", "\n"])) == [0.0, 0.0, 0.0]
    with pytest.raises(TypeError, match="expects strings"):
        scorer.score(["fine", None])  # type: ignore[list-item]


def test_claims_score_above_chit_chat(artifact: checkworthiness.Artifact) -> None:
    scorer = Scorer(artifact)
    claim, chat = scorer.score(["Unemployment fell to 3.5 percent last year, the lowest in fifty years.", "Thank you very much, it's great to be here."])
    assert claim >= scorer.threshold > chat


def test_folds_are_stratified_and_fixed() -> None:
    labels = np.array([1] * 50 + [0] * 150)
    folds = fold_assignment(labels)
    assert np.array_equal(folds, fold_assignment(labels))
    for fold in range(5):
        assert (labels[folds == fold] == 1).sum() == 10 and (folds == fold).sum() == 40


def test_augmentation_is_deterministic_and_keeps_sources() -> None:
    texts = ["We created fourteen million jobs in the last four years.", "Thank you.", "Crime is down by twenty percent in this city."]
    copies, source = augment(texts)
    assert (copies, list(source)) == (augment(texts)[0], list(augment(texts)[1]))
    assert set(source) == {0, 2}  # two-word sentences are not augmented
    assert not set(copies) & set(texts)
    assert all(set(copy.split()) <= set(" ".join(texts).split()) for copy in copies)


def test_text_keys_are_stable() -> None:
    assert text_key("ICE detained nearly 1,500 people.") == text_key("ICE detained nearly 1,500 people.")
    assert text_key("a") != text_key("b")
    assert text_key("") == int.from_bytes(bytes.fromhex("da39a3ee5e6b4b0d"), "little", signed=True)


def test_best_threshold_is_the_f1_optimal_cut() -> None:
    labels = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    decisions = np.array([0.9, 0.8, 0.7, 0.7, 0.3, 0.2, 0.1, 0.1])
    threshold, f1 = best_threshold(labels, decisions)
    predicted = decisions >= threshold
    tp = (predicted & (labels == 1)).sum()
    assert f1 == pytest.approx(2 * tp / (predicted.sum() + labels.sum()))
    assert threshold == 0.7 and f1 == pytest.approx(2 * 3 / (4 + 4))


def test_teacher_logits_refuse_other_data(tmp_path: Path) -> None:
    path = teacher_logits_path()
    assert path.is_file(), "training/checkworthiness_teacher_logits.npz is committed with the project"
    other = Labelled(ids=np.array([1]), texts=["not a CT24 sentence"], labels=np.array([0]))
    with pytest.raises(ValueError, match="other CT24"):
        load_teacher_logits(path, other, [])
    with pytest.raises(FileNotFoundError, match="pipeline.teacher"):
        load_teacher_logits(tmp_path / "missing.npz", other, [])


@pytest.mark.skipif(not (CT24 / EVAL_FILE).is_file(), reason="CT24 dev-test not found in ../shared/data (see README)")
def test_dev_test_f1_target() -> None:
    """A floor under the figure reported for this model (0.762, interval 0.688-0.827):
    the model is not tuned on dev-test, so this only catches a broken artifact."""
    result = evaluate(CT24)
    assert (result.rows, result.positives) == (318, 108)
    assert result.f1 >= 0.75, json.dumps(result.__dict__)
    low, high = result.f1_interval
    assert low < result.f1 < high


def test_threshold_is_the_highest_within_one_standard_error_of_the_best_mean_f1() -> None:
    rng = np.random.default_rng(1)
    genre = np.repeat([0, 1, 2], [400, 200, 20])
    labels = np.r_[rng.random(400) < 0.3, rng.random(200) < 0.35, np.zeros(20, bool)].astype(int)
    scores = np.clip(labels * 0.35 + rng.random(len(labels)) * 0.65, 0, 1)
    scores[genre == 2] = 0.01
    threshold, report = choose_threshold(labels, scores, genre)
    debate, news = np.flatnonzero(genre == 0), np.flatnonzero(genre == 1)
    grid = np.round(np.arange(0.05, 0.951, 0.01), 2)
    curve = np.array([mean_f1(labels, scores, debate, news, t) for t in grid])
    assert report["best_mean_f1"] == pytest.approx(curve.max(), abs=1e-4)
    assert 0 < report["standard_error"] < 0.1
    assert threshold >= report["best_mean_f1_threshold"]
    assert mean_f1(labels, scores, debate, news, threshold) >= curve.max() - report["standard_error"]
    assert all(c < curve.max() - report["standard_error"] for t, c in zip(grid, curve, strict=True) if t > threshold)
    assert report["boilerplate"]["flagged_share"] == 0.0


def test_bootstrap_interval_brackets_the_f1() -> None:
    labels = np.array([1, 0] * 50)
    predicted = np.array([True, False] * 40 + [False, True] * 10)
    low, high = bootstrap_f1_interval(labels, predicted)
    assert low < 0.8 < high and high - low < 0.3


@pytest.mark.skipif(not (SHARED_DATA / "bbc_news" / "bbc_news.jsonl").is_file(), reason="BBC News corpus not found in ../shared/data")
def test_news_labels_resolve_to_the_corpus_text() -> None:
    texts, labels, articles = read_news_labels(SHARED_DATA / "bbc_news" / "bbc_news.jsonl")
    assert len(texts) >= 500 and set(labels) == {"CFS", "UFS", "NFS"}
    assert len(set(articles)) >= 30
    assert all(text.strip() == text and text for text in texts)
