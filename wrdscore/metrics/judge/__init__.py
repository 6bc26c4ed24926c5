"""An LLM judge beside the metrics: :class:`Judge`, registered as ``judge``.

The judge rates each predicted name or summary through an OpenAI-compatible chat
endpoint, from a fixed rubric, with temperature 0 and a seed, and keeps every answer in a
SQLite cache so that a rerun costs nothing and an interrupted run resumes. Importing this
package imports neither ``openai`` nor anything else of the ``judge`` extra: the
client is imported when a run has something to ask.

- :mod:`._prompts`: the rubrics, the messages, the strict reading of a reply;
- :mod:`._cache`: the answers on disk;
- :mod:`._client`: the requests (concurrency, time-outs, retries with backoff);
- :mod:`._judge`: the metric.
"""

from wrdscore.metrics.judge._cache import AnswerCache, default_cache_path
from wrdscore.metrics.judge._judge import FORMATS, Judge
from wrdscore.metrics.judge._prompts import (
    CRITERIA,
    RUBRICS,
    InvalidReply,
    mask_name,
    messages,
    parse_reply,
    prompt_hash,
)

__all__ = [
    "CRITERIA",
    "FORMATS",
    "RUBRICS",
    "AnswerCache",
    "InvalidReply",
    "Judge",
    "default_cache_path",
    "mask_name",
    "messages",
    "parse_reply",
    "prompt_hash",
]
