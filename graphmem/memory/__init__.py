"""The one object a user holds: a store bound to a tenant, with the whole API on it.

:class:`Memory` is assembled from one part per concern (:mod:`graphmem.memory.facade`):
entities and facts (``entities``), conversations (``conversations``), governed facts
(``facts``), the whole tenant (``tenant``), retrieval (``retrieval``), graph questions
(``questions``) and NPC minds (``minds``), over the scope they share (``base``).
"""

from graphmem.memory.facade import Memory, open

__all__ = ["Memory", "open"]
