"""Every ranking constant in one place (``Ranking``), and the calibrations that only depend on them. Pure.

The pipeline reads ``RANKING``; each field says what it is for, the failure it fixes and the
measurement on the tuning set (fixtures/eval/tune.toml) that chose it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from backscroll.retrieval.fusion import Weights
from backscroll.retrieval.meaning import SEMANTIC_FLOOR


@dataclass(frozen=True)
class Ranking:
    """Every ranking constant: what it is for and the failure it fixes, chosen on fixtures/eval/tune.toml
    (the figures are its hybrid hit@1, over 168 queries and for the tool rows 188, unless said otherwise; the
    check set only measures).

    Measured again with the 52 queries written blind later (288; hit@1 .521, recall@5 .771, MRR .613): each
    neighbour named below is within three queries of the value kept at hit@1 (none gains more than two;
    coverage power 1.5 gains four at recall@5 and loses one at hit@1), and the losses named still show
    (coverage power 2: hit@1 -.025; words_full 1.0: -.035; session reach 3: -.028 and recall@5 -.018; no
    session evidence: recall@5 -.059; filler_words 6: -.021).

    And again when meaning came to count by its place (``semantic_top``), on the tuning set alone and with 200
    generated sessions beside it (bench/eval_at_scale.py; hit@1 .517 and .507): every neighbour named below
    is within two queries of the value kept on both, except filler_words 12 (+2 and +4, kept at 9 for the
    reason given there); filler_words 6 (-5 and -5), time_boost 0.5 (-3 and -3), semantic_full 0.7 (-2 and
    -4) and session_reach 3 (recall@5 -.021 and -.027) still lose."""

    # The cosine at which a semantic match carries no evidence: the similarity floor, between the best
    # match a nonsense query reaches and the weakest related pair (meaning.SEMANTIC_FLOOR, measured).
    semantic_floor: float = SEMANTIC_FLOOR
    # The cosine at which it counts fully (MiniLM: a close match); linear in between. 0.5 and 0.7 each
    # lost one to two queries against 0.6.
    semantic_full: float = 0.6
    # ... or by its place among the query's closest records: the closest counts fully, the credit falls
    # with the log of the rank and is gone at ``semantic_top`` (``semantic_quality``). Fixes: paraphrases
    # of long questions, whose answers reach a cosine of only .3 yet come first by meaning, falling out of
    # the top 5 behind partial word matches. It replaced a credit by standard deviations above the
    # query's mean similarity to every record (z / 5), which did the same on the eval corpus alone but
    # moved with records that have nothing to do with the query: with 200 or 600 generated sessions
    # beside it (bench/eval_at_scale.py) the mean and spread fell, most of the top ten reached full
    # meaning and hybrid hit@1 fell .521 -> .472 / .483, while the place is unchanged by them. Tuning set,
    # z / 5 against the place (10): eval corpus alone .521/.785/.617 -> .517/.774/.614 (hit@1/recall@5/
    # MRR); +200 sessions .472/.764/.582 -> .507/.767/.606; +600 .483/.764/.584 -> .507/.764/.605. Around
    # it: 15-30 within two queries at hit@1 on both; 3-5, or the cosine alone (no credit for the place),
    # tie at hit@1 and lose paraphrase recall@5 (.53 -> .44 and .42 on the corpus alone). The check set
    # (measured only): alone .607/.820/.691 -> .592/.815/.685, +200 sessions .540/.791/.636 -> .578/.801/.671.
    semantic_top: int = 10
    # The power of the words evidence (the idf-weighted share of the query's words a record holds).
    # 1, 1.5 and 2 were within a query of each other; linear is the simplest, and the square was what
    # let paraphrases of common words bury the record holding the one rare word (tests/test_ranking_generalizes).
    coverage_power: float = 1.0
    # Word confidence (hybrid search): when no candidate holds ``words_full`` of the query's words
    # (idf-weighted), the words evidence counts (best / words_full) ** words_confidence. Fixes: a
    # paraphrase's answer (no word in common) behind records that share only the question's everyday
    # words ("how long", "keep", "old") and are as close in meaning. On the tuning set (224 queries),
    # against none: hit@1 .576 -> .589, MRR .668 -> .675, recall@5 .821 -> .817 (one inference query
    # from rank 5 to 6); paraphrase hit@1 0 -> .20. Around it: full 0.5-0.6 with power 2-4 all give
    # .589, power 1 gives .585; full 0.4 gains a third as much (.580); 1.0 (scaling any query whose
    # best record lacks some word) gives .571, losing dates and phrases queries. With twelve paraphrase
    # queries written later, blind (236 queries): hit@1 .547 -> .559, MRR .644 -> .650, recall@5
    # .805 -> .797; paraphrase hit@1 0 -> .09, recall@5 .55 -> .50 (its answers still trail semantic
    # ranking's .73 there: records holding a few everyday words, and tool rows, stay in the top 5).
    words_full: float = 0.5
    words_confidence: float = 2.0
    # How much meaning counts against words (words count 1), by query shape. Natural questions: 0.8
    # and 1.0 tie, 0.6 loses 2 queries, 0.4 and 1.3 lose 3-6. Keywords (0.4-1.0) and identifiers
    # (0.3-0.6) made no difference on the tuning set; they keep the order the shapes stand for
    # (an identifier or a path leans on exact words).
    meaning_natural: float = 0.8
    meaning_keywords: float = 0.7
    meaning_identifier: float = 0.6
    # A tool row is never embedded: its words count as if meaning agreed this much. Fixes: a tool
    # output holding most query words buried by prose that holds a few of them and is close in meaning.
    # Measured on the tuning set's 36 tool-output queries (20 of them written for this): 0.5 -> 0.75
    # lifts them from hit@1 .44 to .50 (MRR .52 -> .57), nothing else lost; at 1.0 and above, tool rows
    # holding part of the query outrank prose (wrong-filter .67, lexical .93 at 1.5). Embedding tool rows
    # instead (their first 600 characters), so that they earn meaning and a place like prose: on the
    # tuning set (315 queries) hit@1 .502 -> .505, recall@5 .771 -> .778 (12 queries won at rank 1, 11
    # lost); placed among prose or not, or with this credit kept as a floor, within a query of that (8/8,
    # 11/10, 8/7); with the 92 real files beside it .500 -> .521, but the check set loses (alone .562 ->
    # .558, with the real files .578 -> .569). A real history holds 2.3 times as many tool rows as prose,
    # 4.6 times as long: the embedding pass would take about three times as long for that.
    # Beside real histories a long tool output holding a few everyday words of a chat question ("how
    # long", "stay", "pool" in a config file) takes rank 1 on this credit. Crediting a tool row by the
    # square of its words share (1.0 x words^2) fixes two such questions with the 92 real files beside
    # the tuning set (won 6, lost 1; alone 2/0, with 200 generated sessions 4/1), but the check set does
    # not follow (won 3, lost 3 over the same three conditions; a ratchet id leaves its top 5); a
    # discount for the words a long record holds by chance (1 - (1 - df/N)^(length/mean)) loses on the
    # tuning set alone (hit@1 .502 -> .495). Measured again once outputs counted their call's words
    # (``call_words``; 345 queries): 1.0 gains alone (.527 -> .542) but loses recall@5 there (.815 -> .809),
    # beside the 92 real files (.505 -> .498) and with 200 generated sessions (recall@5 .790 -> .781).
    # Read per query instead (the slope through the origin of the embedded candidates' meaning on their
    # words share, within [0, 1]: as close in meaning as this query's prose holding as many words), measured
    # with the old and new code in one run on an AMD EPYC machine (345 tuning queries, hit@1/recall@5/MRR;
    # the real files here are tests/data/real's, 900 records): over every candidate, alone .522/.817/.636 ->
    # .533/.823/.643, beside the real files .513/.812/.629 -> .525/.815/.636, with 200 generated sessions
    # .504/.800/.619 -> .513/.806/.626; over the ten holding most words, .536, .527 and .513. The check set
    # does not follow at hit@1 (alone .562 -> .562 / .558 over ten, beside the real files .537 -> .546 /
    # .542, with 200 sessions .571 -> .558 / .562; recall@5 and MRR within +-.01): the slope moves with the
    # unrelated prose a larger history adds to the candidates, and moves either way.
    unembedded_meaning: float = 0.75
    # A tool output counts the query words its call holds at this share of their weight (``tool_exchange``):
    # the words of a question about an output ("which commit broke the webhook check", "how much disk does
    # the message log take") are in the command that produced it, the answer (a git log listing, "412 GB")
    # in the output. Tuning set (315 queries), against none: hit@1 .502 -> .524, recall@5 .771 -> .803, MRR
    # .604 -> .632 (won 9, lost 2; tool-output .45 -> .57, lexical .86 -> .93); 0.5 and 0.75 gain half as
    # much (.511, .514); with the 92 real files beside it .489 -> .502, with 200 generated sessions .492 ->
    # .524. On 30 engineering queries written blind afterwards (bt-): hit@1 13 -> 16, none lost. Crediting
    # the call with its output's words as well (0.5) gains one query more alone, none beside real files, and
    # at 1.0 loses (.492): the call is what a question about the command means. Receipts ("File created
    # successfully at: ...", "Todos have been modified successfully") get none (``tool_exchange``): on the
    # tuning set (345 queries) alone, beside the real files and with 200 sessions, hit@1/recall@5 .527/.815
    # -> .525/.817, .505/.765 -> .508/.775, .524/.790 -> .521/.797 (the queries lost were held up by their
    # receipt's support as a neighbour); without it a Write's receipt followed it into the results.
    call_words: float = 1.0
    # Session evidence (hybrid search): a record gains this much of the scores of the strongest other
    # candidates of its session within ``session_reach`` records of it, at most ``session_records`` of them
    # (``session_evidence``). Fixes: the answer at rank 2-10 behind records that match by chance in
    # sessions about something else, while the question and the follow-up sit right beside it. On the
    # tuning set (188 queries), against none: hit@1 .564 -> .590, recall@5 .750 -> .819, MRR .631 -> .672,
    # session hit@1 .670 -> .739. Around it: weight 0.2-0.3 within a query of each other (0.35-0.4 lose
    # phrase and dates queries at rank 1); one neighbour gains half as much, three lose dates queries.
    session_weight: float = 0.25
    session_records: int = 2
    # ... and how near, in records of the session's order (``candidates.fetch_neighbours``): within 4-5
    # ties; 1-3 lose 1-4 queries (a tool call sits between the question and the answer); the whole
    # session, at any distance, gains a fifth as much at rank 1 (hit@1 .569 against .590; none: .564)
    # and lets a long session's chance matches support each other.
    session_reach: int = 5
    # Echoes (when asked for) count this much of their evidence among the results, never first and never
    # two in a row while results remain (``pipeline.interleave``). Fixes: a pile of earlier searches,
    # each quoting every query word, burying the original rows (an echo that quotes a result exactly
    # lands just behind it).
    echo_weight: float = 0.9
    # A date in the query: a record inside its window counts (1 + time_boost) times, decaying outside.
    # Fixes: "What did Tomas do on 14 March?" answered from any date. 0.5 loses 2 queries, 2.0 ties.
    time_boost: float = 1.0
    # Prose with fewer content words than this counts by sqrt(words / filler_words). Fixes: "Bye, Deb!"
    # and "Let's go into more detail." winning rank 1 on a name and a common word. 6 loses 4 queries;
    # 12-20 win 1-5 more here, but as a length prior that would discount a short decision ("use
    # Postgres, not Redis") in an agent's history, so it stays at 9. Sentences that only put their topic
    # off ("Let's talk more about the trip next time": ``priors.deferral``) are not counted: on the tuning
    # set (288 queries) hit@1 .521 -> .528 (filler .30 -> .37, two "tell me more about X" questions whose
    # answer lost to the turn deferring X), nothing else moved.
    filler_words: int = 9
    # A quoted phrase found in fewer records than this is dropped (a note says so): a misspelled title
    # ("The Quite Orchard") no longer returns nothing, and meaning is no longer gated by the phrase.
    phrase_min: int = 1
    # A chat turn spoken by a name the query holds ("Noor: ..." for "What did Noor see?") counts (1 +
    # speaker_boost) times (``priors.speaker``). Fixes: the other participant's turn, which repeats or asks
    # about the same words ("Did you see the harriers again?"), ranked above the answer. In the tuning
    # chats 142 of 143 questions naming one participant are answered by that participant's turn; of the 69
    # such questions whose answer was not first, 15 had the other participant's turn first. Tuning set (361
    # queries), hit@1/recall@5/MRR, against none: alone .532/.823/.644 -> .543/.834/.655 (won 4, lost 0; 18
    # answers rose, none fell), with 200 generated sessions .515/.809/.630 -> .532/.814/.643 (6/0), beside
    # the real files .523/.817/.638 -> .532/.831/.648 (4/1); 0.1-0.3 gain one or two, 0.75 and 1.0 the same
    # as 0.5. The check set, measured after: alone .562/.829/.674 -> .571/.825/.678 (2/0), with 200
    # sessions .571/.821/.673 -> .583/.825/.681 (4/1), beside the real files .537/.821/.655 ->
    # .554/.821/.664 (4/0).
    speaker_boost: float = 0.5
    # The agent's reasoning helps find a session but counts this much against what it said or did.
    reasoning_weight: float = 0.6

    def weights(self, shape: str) -> Weights:
        meaning = {"natural": self.meaning_natural, "keywords": self.meaning_keywords,
                   "identifier": self.meaning_identifier}[shape]
        return Weights(meaning=meaning, power=self.coverage_power, unembedded_meaning=self.unembedded_meaning)


RANKING = Ranking()


def semantic_quality(cosine: float, rank: int | None = None) -> float:
    """How strong a semantic match is, in [0, 1]: the larger of two calibrations.

    Absolute: 0 at the floor, 1 from ``semantic_full`` up. By place (when its ``rank`` among the
    query's closest records is known, 1 = the closest): ``1 - ln(rank) / ln(semantic_top)``, so the
    answer that comes first by meaning counts fully even though its cosine is modest (a long or oddly
    worded question), and the credit is gone by ``semantic_top``. A place only counts above the floor:
    a nonsense query's best match is still no evidence. Records that match nothing else in the query
    do not move the place, as they would move a mean and spread.
    """
    r = RANKING
    absolute = max(0.0, min(1.0, (cosine - r.semantic_floor) / (r.semantic_full - r.semantic_floor)))
    if rank is None or cosine < r.semantic_floor or rank >= r.semantic_top:
        return absolute
    return max(absolute, 1.0 - math.log(max(rank, 1)) / math.log(r.semantic_top))
