"""Messages that are no instruction: acknowledgements and chit-chat ("thanks", "ok proceed")."""

from __future__ import annotations

import re

_WORDS = (
    "ok|okay|k|kk|thanks|thank|you|thx|ty|cheers|great|good|nice|cool|perfect|awesome|excellent|"
    "amazing|wonderful|fantastic|super|sweet|alright|fine|lgtm|sounds|looks|that's|thats|"
    "so|much|very|job|work|works|proceed|continue|go|ahead|on|please|pls|carry|keep|going|"
    "hi|hello|hey|wow"
)
_ACK = re.compile(rf"^(?:(?:{_WORDS})\b[\s,.!?:;)(\-]*)+$", re.I)
_EMOJI = re.compile(r"^\W+$")


def is_chatter(text: str) -> bool:
    """True when a message is only an acknowledgement or a greeting: a few words such as
    "ok", "thanks", "great, proceed", or an emoji, with nothing to do in it."""
    said = " ".join(text.split())
    if not said:
        return False
    if len(said) > 60:
        return False
    return bool(_ACK.match(said) or _EMOJI.match(said))
