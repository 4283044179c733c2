"""Messages that are no instruction: acknowledgements and chit-chat ("thanks", "ok proceed",
"Excellent work, thank you!", a bare "yes" to the agent's proposal, which goes on with the
request it answers rather than making a new one), and remarks that open with one and ask for nothing ("Ok, so
there isn't much to see here, mostly one idea about …"): no question, request or imperative,
and nothing specific (no number, path, code or problem named, which would make it a report)."""

from __future__ import annotations

import re

_WORDS = (
    "ok|okay|k|kk|thanks|thank|you|thx|ty|cheers|great|good|nice|cool|perfect|awesome|excellent|"
    "amazing|wonderful|fantastic|super|sweet|alright|fine|lgtm|sounds|looks|that's|thats|"
    "so|much|very|job|work|works|proceed|continue|go|ahead|on|please|pls|carry|keep|going|"
    "hi|hello|hey|wow|well|brilliant|love|it|this|lovely|all|right|now|yes|yep|yeah|yup|sure|do|"
    "again|for|the|help|a|lot|really|indeed|exactly|agreed|noted|got|gotcha|understood"
)
_ACK = re.compile(rf"^(?:(?:{_WORDS})\b[\s,.!?:;)(\-]*)+$", re.I)
_EMOJI = re.compile(r"^\W+$")
_OPENER = re.compile(r"^(?:ok|okay|well|alright|hmm+)\b[,.!]?", re.I)
_SPECIFIC = re.compile(
    r"[0-9/`=@]|\b(?:error|errors|fail\w*|crash\w*|broken|bug|bugs|wrong|issue|problem|slow|stuck|hang\w*|"
    r"exception|warning|nan|oom|doesn't|does not|isn't working|not working|can't|cannot)\b",
    re.I,
)
"""What makes a remark a report worth keeping: a number, a path, code, or a problem named."""
_VERBS = (
    "add|assume|imagine|pretend|consider|analy[sz]e|build|change|check|clean|commit|compare|continue|create|debug|delete|deploy|describe|do|document|"
    "explain|find|fix|flesh|give|go|help|implement|improve|install|investigate|keep|launch|let|list|look|make|merge|"
    "move|open|plan|prepare|proceed|push|put|read|refactor|remove|rename|research|restart|review|rewrite|run|search|"
    "serve|set|show|split|start|stop|suggest|summari[sz]e|tell|test|try|tune|update|use|verify|write"
)
_REQUEST = re.compile(
    r"\?|\b(?:please|can you|could you|would you|will you|let's|let us|i want|i'd like|i would like|i need|we need|"
    r"you should|you need|make sure|don't|do not|never|always|going to|want to|need to|have to|should|must|we'll|i'll)\b"
    rf"|(?:^|[.!;:,]\s*|\b(?:and|then|also|now|just|maybe|first|next)\s+)(?:{_VERBS})\b",
    re.I,
)


def is_chatter(text: str) -> bool:
    """True when a message is only an acknowledgement or a greeting ("ok", "thanks", "great,
    proceed", "Excellent work, thank you!", an emoji), or a remark that opens with one ("Ok,
    so …", "Well, …"), asks for nothing and names nothing specific."""
    said = " ".join(text.split())
    if not said:
        return False
    if len(said) <= 80 and (_ACK.match(said) or _EMOJI.match(said)):
        return True
    if len(said) > 300 or _OPENER.match(said) is None:
        return False
    rest = _OPENER.sub("", said, count=1)
    return _REQUEST.search(rest) is None and _SPECIFIC.search(rest) is None
