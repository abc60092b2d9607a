"""A learned alternative to the cue-family rules (gitrefocus/handoff/classify.py), measured by
cross-validation grouped by repository on the corpus's tuning sessions, beside the rules and
combined with them:

    .venv/bin/python -m tests.handoff.cue_model            # about two minutes on one core
    .venv/bin/python -m tests.handoff.cue_model --no-words # the hand features only
    .venv/bin/python -m tests.handoff.cue_model --l2 1e-5,1e-4,1e-3 --bootstrap 2000
                    # the L2 strength chosen inside the training folds; the spread over draws of the sessions

Only the ``tuning`` split is read (``corpus.PARTS["tuning"]``; never ``held-out``). A logistic
model per family (L2, stochastic gradient descent in a fixed order for a fixed number of passes:
deterministic, standard library only) over binary features: the families' regex hits and the
rules' verdicts (``classify.families``), the sentence's shape (a question, a heading, a list item,
its length, how it opens) and where it stands (the first sentence of its message, the kind of
message, whether the assistant's reply concedes or acknowledges, whether the assistant's previous
text asked a question or reported a result); and its words: lower-cased unigrams and bigrams,
its first word and first two, the last ``CONTEXT_WORDS`` words of the other party's text before
it and the first of the reply after it. A feature seen in fewer than ``MIN_COUNT`` training
sentences is dropped.

Folds are groups of sessions (:func:`group_of`): every repository other than ``entireio/cli`` is
one, ``entireio/cli``'s sessions are split in ``MAIN_GROUPS`` by a hash of the path — so each
figure is of sentences from a group the model never saw, and the second table (the other
repositories' folds alone) of a repository it never saw at all. In each fold the thresholds are
chosen on out-of-fold scores inside the training folds (``INNER`` folds by group), never on the
test fold. The combinations compared, per family: the rules; the model alone (the highest
recall at a precision of ``--precision``); rules ∪ model (the model adds positives above a
threshold that keeps the rules' own precision, or above the model's own threshold: "at P");
rules ∩ model; the rules with the model vetoing their hits below a threshold (at
``--precision``), alone and with the model adding positives; and "chosen per family" (in each
fold, per family, the combination with the highest inner recall at a precision no lower than
the rules').

Measured (the eleventh round, docs/handoff.md): no combination beats the rules on the overall
figure, with both precision and recall not worse. Over all 20 folds the rules are 0.74 / 0.48;
the model alone 0.65 / 0.48; rules ∪ model 0.74 / 0.49 (at P: 0.62 / 0.57); rules ∩ model 0.83 /
0.39; the veto 0.77 / 0.45; chosen per family 0.74 / 0.50 (precision 0.740 against 0.744; only
intent ever took the model). On the 15 other repositories the rules are 0.66 / 0.33 and the
model alone 0.52 / 0.32. With the L2 strength chosen per family inside the training folds
(``--l2 1e-5,1e-4,1e-3``) "chosen per family" is 0.75 / 0.49 (752 right of 998 taken, against
the rules' 734 of 987), all of it intent, and less precise than the rules on the other
repositories (90 of 137 against 84 of 127): about a point, in the family that matters least to
the brief. Drawing the sessions again (``--bootstrap``), that point holds over all sessions (99%
of draws lose on neither figure) but not on the other repositories (41%). So the extractors use
the rules and ship no weights.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import math
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Set as AbstractSet

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


_TOKEN_RE = re.compile(r"[a-z0-9_']+|[?!:`]")
CONTEXT_WORDS = 12  # how many words of the prior text's end and of the reply's opening are features


def tokens(text: str) -> list[str]:
    return _TOKEN_RE.findall(text.casefold())


def word_features(sentence: str, ctx: classify.Context, context_words: bool = True) -> set[str]:
    """Lower-cased unigrams and bigrams of the sentence, its first word and first two words,
    and (``context_words``) the unigrams of the other party's text just before it (its end:
    what was said last) and of the reply's opening."""
    words = tokens(sentence)
    out = {"w:" + w for w in words}
    out.update("b:" + a + " " + b for a, b in zip(words, words[1:]))
    if words:
        out.add("s:" + words[0])
        out.add("s2:" + " ".join(words[:2]))
    if context_words:
        out.update("p:" + w for w in tokens(ctx.prior)[-CONTEXT_WORDS:])
        out.update("r:" + w for w in tokens(ctx.reply)[:CONTEXT_WORDS])
    return out


@functools.lru_cache(maxsize=None)
def all_features(sentence: str, ctx: classify.Context, words: bool = True, context_words: bool = True
                 ) -> frozenset[str]:
    """Every feature of a sentence (all binary): the hand features, the rules' verdicts, the words."""
    out = set(features(sentence, ctx))
    out.update("rule:" + family for family in classify.families(sentence, ctx))
    out.add("role:" + ctx.role)
    if words:
        out.update(word_features(sentence, ctx, context_words))
    return frozenset(out)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def fit(rows: list[tuple[list[int], bool]], dim: int, l2: float = 1e-4, epochs: int = 12,
        rate: float = 0.2) -> list[float]:
    """L2-regularised logistic regression over binary features (index 0 is the bias), by
    stochastic gradient descent in the rows' fixed order (deterministic): ``epochs`` passes, the
    step shrinking with each; positives weighed up to balance the classes. The penalty,
    ``l2``/2·‖w‖² per row, is applied to the weights a row touches, scaled by how rare the feature
    is, so that over a pass each weight decays as the whole penalty would decay it."""
    w = [0.0] * dim
    n = len(rows)
    positives = sum(y for _, y in rows)
    pos_weight = (n - positives) / positives if positives else 1.0
    counts = [0] * dim
    for x, _ in rows:
        for k in x:
            counts[k] += 1
    decay = [l2 * n / c if c else 0.0 for c in counts]
    decay[0] = 0.0
    for epoch in range(epochs):
        step = rate / (1.0 + epoch)
        for x, y in rows:
            p = _sigmoid(sum(w[k] for k in x))
            g = (p - y) * (pos_weight if y else 1.0)
            for k in x:
                w[k] -= step * (g + decay[k] * w[k])
    return w


class Model:
    """One logistic model per family: weights by feature name, and per family the thresholds of
    :func:`thresholds_for` (``model``, ``add``, ``keep``, ``add2``), the combination "chosen per
    family" takes (``choice``, an index into ``COMBINATIONS``) and the L2 strength it was fitted with."""

    def __init__(self, weights: dict[str, dict[str, float]], thresholds: dict[str, dict[str, float]],
                 words: bool = True, context_words: bool = True):
        self.weights = weights
        self.thresholds = thresholds
        self.words = words
        self.context_words = context_words

    def probability(self, family: str, feats: AbstractSet[str]) -> float:
        w = self.weights.get(family, {})
        return _sigmoid(sum(w.get(name, 0.0) for name in feats))

    def probabilities(self, sentence: str, ctx: classify.Context) -> dict[str, float]:
        feats = all_features(sentence, ctx, self.words, self.context_words)
        return {family: self.probability(family, feats) for family in classify.FAMILIES
                if ctx.role in classify.ROLES[family] and family in self.weights}


MIN_COUNT = 2  # a feature seen in fewer training sentences is dropped


def _encode(data, family: str, words: bool, context_words: bool):
    """The rows of ``family`` as sorted feature indices (0: the bias), and the index of each
    feature kept (seen in at least ``MIN_COUNT`` of them), in name order."""
    rows = [(all_features(s, ctx, words, context_words), family in labels)
            for _, s, ctx, labels in data if ctx.role in classify.ROLES[family]]
    seen: dict[str, int] = {}
    for feats, _ in rows:
        for name in feats:
            seen[name] = seen.get(name, 0) + 1
    vocab = {"bias": 0}
    for name in sorted(seen):
        if seen[name] >= MIN_COUNT:
            vocab[name] = len(vocab)
    encoded = [([0] + sorted(vocab[n] for n in feats if n in vocab), y) for feats, y in rows]
    return encoded, vocab


def fit_family(data, family: str, words: bool, context_words: bool, l2: float, epochs: int) -> dict[str, float]:
    encoded, vocab = _encode(data, family, words, context_words)
    w = fit(encoded, len(vocab), l2=l2, epochs=epochs)
    return {name: w[i] for name, i in vocab.items() if w[i] != 0.0}


# -- choosing thresholds, from scores the model gave sentences it was not fitted on ----------------------
def _pr(tp: int, fp: int, fn: int) -> tuple[float, float]:
    return (tp / (tp + fp) if tp + fp else 0.0, tp / (tp + fn) if tp + fn else 0.0)


def best_threshold(rows: list[tuple[float, bool, bool]], decide, floor: float) -> float:
    """Among the candidate thresholds (the scores themselves, and 1.01: never), the one whose
    decisions ``decide(p, rule, t)`` give the highest recall at a precision of at least ``floor``
    (of those, the most precise); when none reaches it, the one with the best precision."""
    candidates = sorted({round(p, 4) for p, _, _ in rows} | {1.01})
    best_ok: tuple[float, float, float] | None = None
    best_any: tuple[float, float] = (-1.0, 1.01)
    for t in candidates:
        tp = fp = fn = 0
        for p, y, rule in rows:
            hit = decide(p, rule, t)
            tp += hit and y
            fp += hit and not y
            fn += y and not hit
        prec, rec = _pr(tp, fp, fn)
        if tp and prec >= floor and (best_ok is None or (rec, prec) > best_ok[:2]):
            best_ok = (rec, prec, t)
        if tp and prec > best_any[0]:
            best_any = (prec, t)
    return best_ok[2] if best_ok is not None else best_any[1]


COMBINATIONS = ("rules", "model", "rules ∪ model", "rules ∪ model (at P)", "rules ∩ model", "rules − veto",
                "(rules − veto) ∪ model", "chosen per family")


def decide(combination: str, p: float, rule: bool, t: dict[str, float]) -> bool:
    if combination == "chosen per family":
        combination = COMBINATIONS[int(t.get("choice", 0))]
    if combination == "rules":
        return rule
    if combination == "model":
        return p >= t["model"]
    if combination == "rules ∪ model":
        return rule or p >= t["add"]
    if combination == "rules ∪ model (at P)":
        return rule or p >= t["model"]
    if combination == "rules ∩ model":
        return rule and p >= t["model"]
    if combination == "rules − veto":
        return rule and p >= t["keep"]
    return (rule and p >= t["keep"]) or p >= t["add2"]


def thresholds_for(rows: list[tuple[float, bool, bool]], target: float) -> dict[str, float]:
    """The thresholds of one family, from out-of-fold scores ``rows`` (score, wanted, rule hit):
    ``model`` at precision ``target``; ``add`` (rules ∪ model) keeping the rules' own precision on
    these rows; ``keep`` (a rule hit the model vetoes below it) at ``target``, or no veto when the
    rules reach it; ``add2`` adding to the vetoed rules at ``target``."""
    tp = sum(y and r for _, y, r in rows)
    fp = sum(r and not y for _, y, r in rows)
    rules_p = tp / (tp + fp) if tp + fp else 1.0
    t: dict[str, float] = {}
    t["model"] = best_threshold(rows, lambda p, r, x: p >= x, target)
    t["add"] = best_threshold(rows, lambda p, r, x: r or p >= x, rules_p)
    t["keep"] = 0.0 if rules_p >= target else best_threshold(rows, lambda p, r, x: r and p >= x, target)
    keep = t["keep"]
    t["add2"] = best_threshold(rows, lambda p, r, x: (r and p >= keep) or p >= x, max(target, rules_p))
    # the combination this family uses in "chosen per family": on these rows, the highest recall at
    # a precision no lower than the rules' (the rules when none does better)
    best = (-1.0, 0)
    for i, c in enumerate(COMBINATIONS[:-1]):
        tp = fp = fn = 0
        for p, y, r in rows:
            hit = decide(c, p, r, t)
            tp += hit and y
            fp += hit and not y
            fn += y and not hit
        prec, rec = _pr(tp, fp, fn)
        if prec >= rules_p and rec > best[0]:
            best = (rec, i)
    t["choice"] = float(best[1])
    t["inner recall"] = max(best[0], 0.0)
    return t


# -- grouped cross-validation ----------------------------------------------------------------------
MAIN_REPO = "entireio/cli"
MAIN_GROUPS = 5


def group_of(path: str, repo: str) -> str:
    """The fold a session belongs to: its repository, or — for the repository most sessions come
    from — one of ``MAIN_GROUPS`` parts of it by a hash of the session's path."""
    if repo != MAIN_REPO:
        return repo
    return f"{repo}#{hashlib.sha256(path.encode()).digest()[0] % MAIN_GROUPS}"


INNER = 3


def _inner_fold(group: str) -> int:
    return hashlib.sha256(("inner:" + group).encode()).digest()[0] % INNER


def out_of_fold(data, groups: dict[str, str], family: str, words: bool, context_words: bool, l2: float,
                epochs: int) -> list[tuple[float, bool, bool]]:
    """Scores of ``data``'s sentences for ``family``, each from a model fitted on the other inner
    folds (by group), with the rules' verdicts."""
    out = []
    for k in range(INNER):
        test = [r for r in data if _inner_fold(groups[r[0]]) == k]
        train = [r for r in data if _inner_fold(groups[r[0]]) != k]
        if not test or not train:
            continue
        w = fit_family(train, family, words, context_words, l2, epochs)
        model = Model({family: w}, {}, words, context_words)
        for _, s, ctx, labels in test:
            if ctx.role not in classify.ROLES[family]:
                continue
            feats = all_features(s, ctx, words, context_words)
            out.append((model.probability(family, feats), family in labels, family in classify.families(s, ctx)))
    return out


def train(data, groups: dict[str, str], target: float, words: bool = True, context_words: bool = True,
          l2: float | tuple[float, ...] = 1e-4, epochs: int = 12) -> Model:
    """A model fitted on ``data``, its thresholds chosen on inner out-of-fold scores. Given several
    ``l2``, each family takes the one whose "chosen per family" combination has the highest inner
    recall (at a precision no lower than the rules'; the first on a tie)."""
    grid = l2 if isinstance(l2, tuple) else (l2,)
    weights, thresholds = {}, {}
    for family in classify.FAMILIES:
        if not any(family in labels for *_, labels in data):
            continue
        best: tuple[float, float, dict[str, float]] | None = None
        for strength in grid:
            t = thresholds_for(out_of_fold(data, groups, family, words, context_words, strength, epochs), target)
            if best is None or t["inner recall"] > best[0]:
                best = (t["inner recall"], strength, t)
        assert best is not None
        weights[family] = fit_family(data, family, words, context_words, best[1], epochs)
        thresholds[family] = {**best[2], "l2": best[1]}
    return Model(weights, thresholds, words, context_words)


def cross_validate(data, groups: dict[str, str], target: float, words: bool = True, context_words: bool = True,
                   l2: float | tuple[float, ...] = 1e-4, epochs: int = 12, log=None,
                   per_session: dict[str, dict[str, list[int]]] | None = None):
    """Pooled test-fold counts per combination and family, the folds being ``groups`` (a session's
    repository, or a part of the main one): each figure is of sentences from a group the model
    and its thresholds never saw. Returns the counts over every fold, over the folds of the
    repositories other than the main one (a repository never seen at all), and the combination
    each fold's "chosen per family" took for each family. ``per_session``, when given, is filled
    with each session's overall counts per combination ([tp, fp, fn]), for :func:`bootstrap`."""
    scores = {c: {f: corpus.Score() for f in classify.FAMILIES} for c in COMBINATIONS}
    other = {c: {f: corpus.Score() for f in classify.FAMILIES} for c in COMBINATIONS}
    names = sorted(set(groups.values()))
    chosen: dict[str, list[str]] = {f: [] for f in classify.FAMILIES}
    for g in names:
        test_rows = [r for r in data if groups[r[0]] == g]
        train_rows = [r for r in data if groups[r[0]] != g]
        model = train(train_rows, groups, target, words, context_words, l2, epochs)
        for family, t in model.thresholds.items():
            chosen[family].append(COMBINATIONS[int(t["choice"])])
        if log:
            log(f"fold {g}: {len(test_rows)} sentences; " +
                ", ".join(f"{f} {COMBINATIONS[int(t['choice'])]} (l2 {t['l2']:g})" for f, t in model.thresholds.items()))
        for path, sentence, ctx, labels in test_rows:
            probs = model.probabilities(sentence, ctx)
            rules = classify.families(sentence, ctx)
            for family in classify.FAMILIES:
                if ctx.role not in classify.ROLES[family]:
                    continue
                wanted = family in labels
                p = probs.get(family, 0.0)
                t = model.thresholds.get(family, {"model": 1.01, "add": 1.01, "keep": 0.0, "add2": 1.01})
                for c in COMBINATIONS:
                    hit = decide(c, p, family in rules, t)
                    for table_ in (scores, other) if not g.startswith(MAIN_REPO + "#") else (scores,):
                        s = table_[c][family]
                        s.tp += hit and wanted
                        s.fp += hit and not wanted
                        s.fn += wanted and not hit
                    if per_session is not None:
                        counts = per_session.setdefault(path, {}).setdefault(c, [0, 0, 0])
                        counts[0] += hit and wanted
                        counts[1] += hit and not wanted
                        counts[2] += wanted and not hit
    return scores, other, chosen


def bootstrap(per_session: dict[str, dict[str, list[int]]], resamples: int, seed: int = 0) -> str:
    """How far each combination's overall precision and recall differ from the rules' when the
    sessions are drawn again with replacement (``resamples`` times, a fixed seed): the 2.5th and
    97.5th percentiles of the differences, and the share of draws in which neither is lower."""
    rng = random.Random(seed)
    names = sorted(per_session)
    diffs: dict[str, list[tuple[float, float]]] = {c: [] for c in COMBINATIONS[1:]}
    for _ in range(resamples):
        drawn = [names[rng.randrange(len(names))] for _ in names]
        totals = {c: [0, 0, 0] for c in COMBINATIONS}
        for name in drawn:
            for c, counts in per_session[name].items():
                t = totals[c]
                t[0] += counts[0]
                t[1] += counts[1]
                t[2] += counts[2]
        base = _pr(*totals["rules"])
        for c in COMBINATIONS[1:]:
            p, r = _pr(*totals[c])
            diffs[c].append((p - base[0], r - base[1]))
    lines = ["| against the rules | precision (95%) | recall (95%) | neither lower |", "|---|---|---|---|"]
    for c, ds in diffs.items():
        ps, rs = sorted(d[0] for d in ds), sorted(d[1] for d in ds)
        lo, hi = int(0.025 * len(ds)), min(len(ds) - 1, int(0.975 * len(ds)))
        both = sum(1 for d in ds if d[0] >= 0 and d[1] >= 0) / len(ds)
        lines.append(f"| {c} | {ps[lo]:+.3f} … {ps[hi]:+.3f} | {rs[lo]:+.3f} … {rs[hi]:+.3f} | {both:.2f} |")
    return "\n".join(lines)


def comparison(scores) -> str:
    """One table: a row per family, a column per combination (precision / recall)."""
    head = "| cue family | " + " | ".join(COMBINATIONS) + " |"
    lines = [head, "|---" * (len(COMBINATIONS) + 1) + "|"]
    for family in (*classify.FAMILIES, "all"):
        cells = []
        for c in COMBINATIONS:
            if family == "all":
                s = corpus.Score()
                for f in classify.FAMILIES:
                    s.add(scores[c][f])
            else:
                s = scores[c][family]
            cells.append(f"{_fmt(s.precision)} / {_fmt(s.recall)} ({s.tp}/{s.tp + s.fp}/{s.tp + s.fn})")
        name = f"**{family}**" if family == "all" else family
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(x: float) -> str:
    return "n/a" if x != x else f"{x:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cross-validate a learned cue-family model beside the rules, "
                                                 "grouped by repository.")
    parser.add_argument("--mirrors", default=os.environ.get("GIT_REFOCUS_CORPUS_MIRRORS", corpus.DEFAULT_MIRRORS))
    parser.add_argument("--precision", type=float, default=0.8, help="the precision each threshold aims at")
    parser.add_argument("--no-words", action="store_true", help="the hand features only")
    parser.add_argument("--no-context-words", action="store_true", help="no words of the prior text or the reply")
    parser.add_argument("--l2", type=lambda v: tuple(float(x) for x in v.split(",")), default=(1e-4,),
                        help="the L2 strength, or several (comma-separated): each family takes one inside the "
                             "training folds")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="also print how the differences from the rules vary over N draws of the sessions")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    try:
        data = corpus.labelled("tuning", args.mirrors)
    except corpus.MirrorMissing as exc:
        print(f"cannot fit: {exc}", file=sys.stderr)
        return 2
    srcs = corpus.sources()
    groups = {key: group_of(key, srcs[key].repo) for key in {r[0] for r in data}}
    log = (lambda m: print(m, file=sys.stderr, flush=True)) if args.verbose else None
    per_session: dict[str, dict[str, list[int]]] = {}
    scores, other, chosen = cross_validate(data, groups, args.precision, not args.no_words, not args.no_context_words,
                                           args.l2, args.epochs, log, per_session)
    print(f"## cross-validation grouped by repository: {len(groups)} tuning sessions, {len(data)} sentences, "
          f"{len(set(groups.values()))} folds (every repository but {MAIN_REPO} one, {MAIN_REPO} in {MAIN_GROUPS})\n")
    print(f"features: hand{'' if args.no_words else ' + words'}"
          f"{'' if args.no_words or args.no_context_words else ' + context words'}; "
          f"l2 {' or '.join(f'{x:g}' for x in args.l2)}, "
          f"{args.epochs} epochs; thresholds at precision {args.precision} (inner {INNER}-fold by group)\n")
    print("precision / recall (tp / taken / labelled)\n")
    print(comparison(scores))
    print(f"\nthe same, only the folds of repositories other than {MAIN_REPO} "
          f"({sum(1 for g in set(groups.values()) if not g.startswith(MAIN_REPO + '#'))} repositories, "
          f"{sum(1 for r in data if not groups[r[0]].startswith(MAIN_REPO + '#'))} sentences):\n")
    print(comparison(other))
    print("\nchosen per family (in how many of the folds): " + "; ".join(
        f"{family} " + ", ".join(f"{c} {n}" for c, n in sorted(Counter(names).items(), key=lambda x: (-x[1], x[0])))
        for family, names in chosen.items()))
    if args.bootstrap:
        print(f"\nthe overall figure's difference from the rules over {args.bootstrap} draws of the "
              f"{len(per_session)} sessions (with replacement):\n")
        print(bootstrap(per_session, args.bootstrap))
        others = {k: v for k, v in per_session.items() if not groups[k].startswith(MAIN_REPO + "#")}
        print(f"\nthe same, over draws of the {len(others)} sessions of the other repositories:\n")
        print(bootstrap(others, args.bootstrap))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
