"""Graph question answering: a question about the entity graph, answered by a typed walk.

``Memory.ask("who directed the films written by Mircea Eliade?")`` returns the entities
that answer it, each with the chain of facts that reached it. No model is trained and no
phrase is written for one dataset: the relationship types a question may walk are read
from the store (:meth:`graphmem.GraphStore.relationship_patterns`, and which roles go
together on one entity, :meth:`graphmem.GraphStore.relationship_cooccurrence`), and a
question is matched against their names and the descriptions a user attached to them
(:mod:`graphmem.retrieval.schema`).

Each step has its module: :class:`GraphQA` (:mod:`~graphmem.retrieval.graphqa.answering`)
links (1) and answers (6, judged by :mod:`~graphmem.retrieval.graphqa.judging`); the
reading (2) is :mod:`~graphmem.retrieval.graphqa.reading`, the match (3)
:mod:`~graphmem.retrieval.graphqa.matching`, the plan (4)
:mod:`~graphmem.retrieval.graphqa.planning` and the walk (5)
:mod:`~graphmem.retrieval.graphqa.walking`.

1. **Link.** The entities the question names (:class:`EntityLinker`, longest match); each
   mention is a candidate topic, one reading per phrase.
2. **Read.** The question's words outside the topic's mention, with their positions; its
   question word ("who", "which", ...) and focus (the words after "which" / "what", or
   what "who", "where", "when" ask for: a person, a place, a time); and whether it asks
   for a walk there and back: it speaks of something shared ("same", "share", "also",
   "together", "co-", "else", ...), or names one type in two places along with the kind
   of entity the walk comes back to ("the films written by the writer of X"). A "grand"
   kin noun is its kin noun twice ("grandchildren"); the noun the topic's name is
   attached to ("X's *husband*", "the *mother* of X") names the first step and its way
   (only a type the topic's kind takes that way: "Kaya's *boss*" is no restaurant's
   ``manager``; and unless the topic has no fact of what it names and the noun names a
   kind of entity too, "X's *film*": then any first step); a noun in "-ee" is the one
   its verb is done to ("X's *trainee*"). "*Whose* boat is X?" asks who has X: where no
   other word names a relation, "whose" names possession at half a word's weight, and the
   noun saying what X is needs no step. The question
   word is the first outside the names (one reading for the plan and the checks).
3. **Match.** Each word against each relationship type's vocabulary (the words of its name
   and description; a word most types share counts little): 1 when their light stems
   agree ("directed" / "director", "starred" / "stars"), otherwise, given an embedder, by
   the cosine similarity of the two words' embeddings above a floor ("wrote" / "writer",
   "films" / "movie"). Function words count a little: "in" says something of
   ``located_in``. Two words a type's name writes as one ("base camp") match it. A word
   no type explains, between two kinds of entity the question names (a type's own word,
   "which *dishes*"; a name's entities; what "who" / "where" ask for), is read as the
   one type joining those kinds, when exactly one does and no other word between them
   names a relation (:mod:`~graphmem.retrieval.graphqa.joining`): "which peak is the
   team *going for*?" of ``targets``; never a word WordNet does not know, nor any word
   between two kinds of person ("which knight *betrayed* X?", "X's *husband*"). A word
   still unexplained whose embedding is near (cosine .45 to the 0.6 floor) the name of
   one type joining the kinds around it, clearly nearer than any other joining type and
   with no type of other kinds nearer, matches it at 0.5
   (:mod:`~graphmem.retrieval.graphqa.nearness`): "who is the *doctor* on X?" of
   ``medic``; never the noun a name is attached to ("the *navigator* of X"), never a type
   joining two kinds of person, never by a description's words.
4. **Plan.** Relation paths of up to ``max_hops`` steps (a step is a type walked forwards,
   backwards or, for a type that links entities of one kind both ways, either way), by beam
   search: the first step must be a fact the topic has, each next one a step the entities
   reached can take by their roles (entity types may be coarse). Scored by
   :class:`GraphQASettings`: the question words its types explain, the words another type
   explains better (never the word asked with when it names a kind of entity by a type's
   name or description, "which *train*": what the answer is), its length (a step costs more
   when the types are read with their descriptions, whose words explain more by chance), a
   walk there and back (asked for or not), the order of its types against the order of their
   words (the type named nearest the topic is walked first, the one nearest the question
   word last), how well the entity types it ends at (or its last type, walked forwards: a
   type's words describe its targets) fit the focus, a cost for ending at a described type
   that is not what is asked, and how many facts can take each step. A type joining one kind
   to itself that holds both ways (``married_to``, ``allied_with``, ``teammate``) may be
   walked both ways at no cost; one that does not is walked the way the words naming it say
   or, when none does, from the topic as its source when the topic is the subject ("who did
   X *learn the trade* from?" of ``apprenticed_to``; to it for a passive name,
   ``mentored_by``).
5. **Walk.** The best paths, one :meth:`GraphStore.expand` call per step for the whole
   frontier, until one reaches an entity (and more while fewer than ``k`` are found).
   A walk never comes back to the topic. A path with a step nothing in the question asks
   for (no word, no kind it reaches, no small word of place; a verb of holding needs
   none) is not walked; "which *estate*" keeps the entities of that kind and walks on.
6. **Answer.** The entities reached, by path, then by how well their type fits the focus,
   then by how many chains reach them; each with one chain of facts from the topic as
   provenance. Or no answer, with the reason: no path explains the question's relation
   words, or none reaches the kind it asks for by a type's own word ("which *church*"),
   or a word names by its own word a relationship type that entities of the topic's kind
   have and the topic has not ("who *guides* X?" walked by ``leads``). The word asked
   with explains itself when it names no entity type but WordNet's first sense of it is
   the kind of each type the path ends at ("*which surveyor* passed the ship?" of a walk
   to ``person``; a person, place, event, animal, natural object or time: not an
   artifact nor a group). A question that asks for a time ("when", "*what year*"), a
   number ("how many") or a measure ("*how old*", "*what colour*") is answered only by a
   path that ends at one (an entity type, or a last type named by it: ``release_year``).
   An entity the question names is never an answer.
7. **Phrase.** Where the words explain too little to answer, the question said with the
   topic's name replaced by its kind ("whereabouts is the pub?") is compared, as one
   sentence, with the fact shapes of that kind ("pub stands in place"): when the nearest
   is one the topic has, clearly, it is walked, with a lower confidence
   (:mod:`~graphmem.retrieval.graphqa.phrasing`). When it is not, and the question asks
   for a kind by an entity type's own word ("*which vet* sees to X?"), the one
   relationship type joining the topic's kind to that kind, if there is only one and
   the topic has such a fact, is walked; not between two kinds of person
   (:func:`~graphmem.retrieval.graphqa.phrasing.only_way`, confidence 0.3).
"""

from graphmem.retrieval.graphqa.answering import GraphAnswer, GraphAnswers, GraphQA
from graphmem.retrieval.graphqa.vocabulary import (
    Ambiguity,
    GraphQASettings,
    PathStep,
    PlannedPath,
    light_stem,
)

__all__ = [
    "Ambiguity",
    "GraphAnswer",
    "GraphAnswers",
    "GraphQA",
    "GraphQASettings",
    "PathStep",
    "PlannedPath",
    "light_stem",
]
