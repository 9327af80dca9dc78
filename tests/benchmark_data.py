"""Tiny inputs for the benchmarks' smoke runs, in the formats of the datasets they read.

A smoke run checks that a benchmark still runs end to end on today's code, in seconds; it needs
no dataset. These files hold a few made-up turns in LoCoMo's and LongMemEval's shapes (never the
datasets' own text, which stays in ../shared/data). The scorers that LoCoMo and LongMemEval ship
(locomo_retrieval.py, lme_retrieval.py) are read from there: a run that scores needs them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Beside the clone (CI keeps a copy of shared/ there); a checkout elsewhere names it.
SHARED_DATA = Path(os.environ.get("AGENT_MEMORY_SHARED_DATA", ROOT.parent / "shared" / "data"))

_SESSIONS = [
    (
        "1:56 pm on 8 May, 2023",
        [
            ("Ana", "Hi Ben! I started a pottery class last week, it is so relaxing."),
            ("Ben", "That sounds great. I am training for the Lisbon marathon in October."),
            ("Ana", "Wow, how many kilometres do you run a week?"),
            ("Ben", "About forty kilometres, mostly along the river before work."),
        ],
    ),
    (
        "10:37 am on 27 June, 2023",
        [
            ("Ben", "I adopted a rescue dog called Pixel yesterday!"),
            ("Ana", "Lovely! My pottery teacher says my first vase is ready to glaze."),
            ("Ben", "Pixel already sleeps on my running shoes."),
            ("Ana", "I will bring the vase to show you next time."),
        ],
    ),
]
_QA = [
    ("What class did Ana start?", ["D1:1"], 4),
    ("Which marathon is Ben training for?", ["D1:2"], 4),
    ("When did Ben adopt his dog?", ["D2:1"], 2),
    ("What is the name of Ben's dog?", ["D2:1", "D2:3"], 1),
]
_OBSERVATIONS = {
    1: {
        "Ana": [["Ana started a pottery class.", "D1:1"]],
        "Ben": [
            ["Ben trains for the Lisbon marathon.", "D1:2"],
            ["Ben runs about forty kilometres a week.", "D1:4"],
        ],
    },
    2: {
        "Ben": [["Ben adopted a rescue dog called Pixel.", "D2:1"]],
        "Ana": [["Ana's first vase is ready to glaze.", "D2:2"]],
    },
}


def tiny_locomo(path: Path) -> Path:
    """One conversation of two sessions, with observations and four questions, as LoCoMo's."""
    conversation: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    for number, (date, turns) in enumerate(_SESSIONS, start=1):
        conversation[f"session_{number}_date_time"] = date
        conversation[f"session_{number}"] = [
            {"speaker": speaker, "dia_id": f"D{number}:{i}", "text": text}
            for i, (speaker, text) in enumerate(turns, start=1)
        ]
    sample = {
        "sample_id": "conv-smoke",
        "conversation": conversation,
        "observation": {f"session_{n}_observation": o for n, o in _OBSERVATIONS.items()},
        "qa": [
            {"question": q, "answer": "", "evidence": evidence, "category": category}
            for q, evidence, category in _QA
        ],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def tiny_longmemeval(path: Path, questions: int = 2) -> Path:
    """`questions` LongMemEval questions, each a haystack of three short sessions, one gold."""
    rows = []
    for n in range(questions):
        sessions = [
            [
                {"role": "user", "content": "Can you suggest a stretch for tight calves?"},
                {"role": "assistant", "content": "Try a wall calf stretch, thirty seconds a side."},
            ],
            [
                {
                    "role": "user",
                    "content": f"I finished my {n + 3}th painting project in my evening class.",
                    "has_answer": True,
                },
                {"role": "assistant", "content": "Congratulations on the new painting!"},
            ],
            [
                {"role": "user", "content": "What is a good recipe for lentil soup?"},
                {"role": "assistant", "content": "Simmer red lentils with onion and cumin."},
            ],
        ]
        rows.append(
            {
                "question_id": f"smoke{n}",
                "question_type": "knowledge-update",
                "question": "How many painting projects have I finished in my class?",
                "question_date": "2023/11/08 (Wed) 09:08",
                "answer": str(n + 3),
                "answer_session_ids": [f"answer_smoke{n}"],
                "haystack_dates": [
                    "2023/07/21 (Fri) 21:48",
                    "2023/08/02 (Wed) 19:10",
                    "2023/09/14 (Thu) 08:30",
                ],
                "haystack_session_ids": [f"a{n}", f"answer_smoke{n}", f"c{n}"],
                "haystack_sessions": sessions,
            }
        )
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path
