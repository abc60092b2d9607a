"""A learned alternative to the cue-family rules (gitrefocus/handoff/classify.py), measured by
leave-sessions-out cross-validation on the corpus's tuning sessions, beside the rules and the
bare regexes:

    .venv/bin/python -m tests.handoff.cue_model

A logistic model per family over simple features: the families' regex hits, the sentence's shape
(a question, a heading, a list item, its length, how it opens) and where it stands (the first
sentence of its message, the kind of message, whether the assistant's reply concedes or
acknowledges, whether the assistant's previous text asked a question or reported a result).
Only the ``tuning`` split is read (never ``held-out``). Folds are whole sessions, assigned by a
hash of the path. In each fold a model is fitted per family on the other folds' sentences and
its threshold chosen on those same sentences (the highest recall at a training precision of at
least ``--precision``); the table pools the test folds' counts. The rules have no fitted
parameters (they were chosen reading all tuning sessions, which favours them here); the model
did not beat them, so the extractors use the rules and ship no weights.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import sys

from gitrefocus.handoff import classify
from tests.handoff import corpus

_ACK_RE = re.compile(r"^\W*(?:ah|oh|I see|got it|understood|makes sense|right|ok(?:ay)?,? (?:so|I see))\b", re.I)
_CHALLENGE_RE = re.compile(r"\b(?:are (?:we|you) sure|is there no|isn'?t there|why (?:are|do|did|is|not|don'?t)|"
                           r"really|right\?|doubt|wondering|not sure|instead|rather|already|doesn'?t seem|strange|weird)\b",
                           re.I)
_PROPOSE_RE = re.compile(r"^\W*(?:can|could|would|should|shall) (?:we|you)\b|^\W*(?:let'?s|please)\b", re.I)
_IMPERATIVE_RE = re.compile(r"^\W*(?:add|remove|delete|fix|use|make|change|rename|move|update|replace|create|write|"
                            r"implement|commit|push|revert|drop|keep|run|test|put|wrap|refactor|split|merge)\b", re.I)
_ANNOUNCE_RE = re.compile(r"^\W*(?:(?:now|first|next|then|ok(?:ay)?|great|good|perfect|done|also)\W+)*"
                          r"(?:let me|let's|I'll|I will|I'm going to|I need to|going to)\b", re.I)
_DONE_RE = re.compile(r"^\W*(?:done|fixed|added|updated|removed|changed|created|committed|pushed|implemented|"
                      r"all (?:tests|checks|good|done|set|clean)|tests? pass|lint(?:ing)? passes)\b|\bI'?ve\b", re.I)
_RESULT_RE = re.compile(r"\b(?:pass(?:es|ed|ing)?|works?|working|fixed|succeed(?:s|ed)?|clean|green|resolved|"
                        r"root cause|the (?:issue|problem|bug|cause) (?:is|was)|because|confirmed)\b", re.I)
_FAIL_RE = re.compile(r"\b(?:fail(?:s|ed|ing|ures?)?|broken|error|(?:does|do|did)(?:n'?t| not) work|not working|"
                      r"can'?t|couldn'?t|unable)\b", re.I)
_HYPOTHESIS_RE = re.compile(r"\b(?:I think|probably|likely|I suspect|might|may be|seems|appears|could be|"
                            r"looks like|maybe)\b", re.I)
_NEGATION_RE = re.compile(r"\b(?:not|n'?t|no|never|wrong|incorrect)\b", re.I)
_RULE_RE = re.compile(r"\b(?:must|never|always|only|should(?:n'?t)?|don'?t|do not|make sure|need(?:s)? to|"
                      r"has to|have to|without|keep)\b", re.I)
_REMAIN_RE = re.compile(r"\b(?:still|not yet|remaining|remains?|left|later|follow-?up|todo|pending|unresolved|"
                        r"deferred|out of scope)\b", re.I)


def features(sentence: str, ctx: classify.Context) -> dict[str, float]:
    """The sentence's features, by name (a missing name is 0)."""
    f: dict[str, float] = {"bias": 1.0}
    for family, cue in classify.CUES.items():
        if cue.search(sentence) is not None:
            f["cue:" + family] = 1.0
    stripped = sentence.strip()
    for name, regex in (("concede", classify.CONCEDE_RE), ("announce", _ANNOUNCE_RE), ("done", _DONE_RE),
                        ("result", _RESULT_RE), ("fail", _FAIL_RE), ("hypothesis", _HYPOTHESIS_RE),
                        ("negation", _NEGATION_RE), ("rule", _RULE_RE), ("remain", _REMAIN_RE),
                        ("pushback", classify.PUSHBACK_RE), ("challenge", _CHALLENGE_RE), ("propose", _PROPOSE_RE),
                        ("imperative", _IMPERATIVE_RE)):
        if regex.search(stripped):
            f[name] = 1.0
    if stripped.endswith("?"):
        f["question"] = 1.0
    if stripped.endswith(":"):
        f["colon"] = 1.0
    if stripped.startswith(("#", "|")) or (stripped.startswith("**") and stripped.endswith(("**", "**:"))):
        f["heading"] = 1.0
    if re.match(r"^(?:[-*+]|\d+[.)])\s", stripped):
        f["item"] = 1.0
    if len(stripped) < 40:
        f["short"] = 1.0
    if len(stripped) > 160:
        f["long"] = 1.0
    if ctx.first:
        f["first"] = 1.0
    if ctx.role == "user":
        f["user"] = 1.0
        if ctx.kind not in (classify.TEXT, classify.TYPED):
            f["kind:" + ctx.kind] = 1.0
        if classify.CONCEDE_RE.search(ctx.reply):
            f["reply:concede"] = 1.0
        if _ACK_RE.search(ctx.reply):
            f["reply:ack"] = 1.0
        if ctx.prior.rstrip().endswith("?"):
            f["prior:question"] = 1.0
        if ctx.prior and _RESULT_RE.search(ctx.prior[-400:]):
            f["prior:result"] = 1.0
        if not ctx.prior.strip():
            f["opening"] = 1.0
    return f


class Model:
    """One logistic model per family: weights by feature name and the decision threshold."""

    def __init__(self, weights: dict[str, dict[str, float]], thresholds: dict[str, float]):
        self.weights = weights
        self.thresholds = thresholds

    def probability(self, family: str, feats: dict[str, float]) -> float:
        w = self.weights.get(family, {})
        z = sum(w.get(name, 0.0) * value for name, value in feats.items())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def families(self, sentence: str, ctx: classify.Context) -> set[str]:
        feats = features(sentence, ctx)
        return {family for family in classify.FAMILIES if ctx.role in classify.ROLES[family]
                and family in self.weights and self.probability(family, feats) >= self.thresholds[family]}


def fit(rows: list[tuple[dict[str, float], bool]], l2: float = 0.1, epochs: int = 800,
        rate: float = 3.0) -> dict[str, float]:
    """L2-regularised logistic regression by full-batch gradient descent (the data is small)."""
    w: dict[str, float] = {}
    n = max(1, len(rows))
    positives = sum(y for _, y in rows)
    # weigh the rare class up so that the fit does not settle on "never"
    pos_weight = (n - positives) / positives if positives else 1.0
    total = (n - positives) + positives * pos_weight
    for _ in range(epochs):
        grad: dict[str, float] = {}
        for feats, y in rows:
            z = sum(w.get(k, 0.0) * v for k, v in feats.items())
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = (p - y) * (pos_weight if y else 1.0)
            for k, v in feats.items():
                grad[k] = grad.get(k, 0.0) + g * v
        for k in set(grad) | set(w):
            reg = 0.0 if k == "bias" else l2 * w.get(k, 0.0)
            w[k] = w.get(k, 0.0) - rate * (grad.get(k, 0.0) / total + reg / n)
    return {k: round(v, 4) for k, v in w.items() if abs(v) >= 1e-4}


def choose_threshold(scores: list[tuple[float, bool]], precision: float) -> float:
    """The lowest threshold whose precision on ``scores`` is at least ``precision`` (the highest
    recall that keeps it), else the one with the best precision."""
    ordered = sorted(scores, key=lambda s: -s[0])
    tp = fp = 0
    best, best_p = 1.0, -1.0
    chosen = None
    for i, (p, y) in enumerate(ordered):
        tp += y
        fp += not y
        if i + 1 < len(ordered) and ordered[i + 1][0] == p:
            continue
        prec = tp / (tp + fp)
        if prec >= precision and tp:
            chosen = p
        if prec > best_p:
            best, best_p = p, prec
    return round(chosen if chosen is not None else best, 4)


def train(data, precision: float) -> Model:
    weights, thresholds = {}, {}
    for family in classify.FAMILIES:
        rows = [(features(s, ctx), family in labels) for _, s, ctx, labels in data
                if ctx.role in classify.ROLES[family]]
        if not any(y for _, y in rows):
            continue
        w = fit(rows)
        model = Model({family: w}, {})
        weights[family] = w
        thresholds[family] = choose_threshold([(model.probability(family, f), y) for f, y in rows], precision)
    return Model(weights, thresholds)


def fold_of(path: str, folds: int) -> int:
    return hashlib.sha256(path.encode()).digest()[0] % folds


def cross_validate(data, folds: int, precision: float):
    """Pooled test-fold counts per family: the model (fitted without the fold), the rules
    (``classify.families``) and the regex alone, on the same sentences."""
    variants = ("model", "rules", "regex")
    scores = {v: {f: corpus.Score() for f in classify.FAMILIES} for v in variants}
    for k in range(folds):
        test_rows = [r for r in data if fold_of(r[0], folds) == k]
        if not test_rows:
            continue
        model = train([r for r in data if fold_of(r[0], folds) != k], precision)
        for _, sentence, ctx, labels in test_rows:
            fired = {"model": model.families(sentence, ctx), "rules": classify.families(sentence, ctx),
                     "regex": {f for f, cue in classify.CUES.items() if cue.search(sentence) is not None}}
            for family in classify.FAMILIES:
                if ctx.role not in classify.ROLES[family]:
                    continue
                wanted = family in labels
                for v in variants:
                    hit = family in fired[v]
                    s = scores[v][family]
                    s.tp += hit and wanted
                    s.fp += hit and not wanted
                    s.fn += wanted and not hit
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cross-validate a learned cue-family model beside the rules.")
    parser.add_argument("--mirrors", default=os.environ.get("GIT_REFOCUS_CORPUS_MIRRORS", corpus.DEFAULT_MIRRORS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--precision", type=float, default=0.8, help="training precision each threshold keeps")
    args = parser.parse_args(argv)
    try:
        data = corpus.labelled("tuning", args.mirrors)
    except corpus.MirrorMissing as exc:
        print(f"cannot fit: {exc}", file=sys.stderr)
        return 2
    sessions = len({r[0] for r in data})
    scores = cross_validate(data, args.folds, args.precision)
    print(f"## leave-sessions-out cross-validation: {sessions} tuning sessions, {len(data)} sentences, "
          f"{args.folds} folds\n")
    for variant, title in (("model", "logistic model (fitted per fold)"), ("rules", "rules (classify.py)"),
                           ("regex", "regex alone")):
        print(corpus.table(f"cue family: {title}", scores[variant]) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
