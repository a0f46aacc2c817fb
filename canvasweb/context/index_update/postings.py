"""The keyword postings of an update, and the BM25 text index kept in step with them.

The CanvasIndex's BM25 text index
`text_index` (NodeTextIndex: `add_text(doc_id, text)` / `remove(doc_id)`, `fork()` for
copy-on-write) is kept in step through `_text_hook_*`: it receives the same
text the keyword postings are built from, for nodes that are indexed.
"""

from __future__ import annotations

import bisect
from typing import Any

from ..canvas_index import CanvasIndex
from ..text import extract_terms
from .owned import _Everything


class _PostingsCopy:
    """IndexUpdate's keyword-postings and text-index methods."""

    index: CanvasIndex
    _own_postings: bool
    _own_terms: set[str] | _Everything
    _text: Any

    # ----------------------------------------------------------- keyword postings
    def _postings_change(self, i: int, node_id: str, old_text: str | None, new_text: str | None) -> None:
        ix = self.index
        old_terms = extract_terms(old_text) if old_text is not None else frozenset()
        new_terms = extract_terms(new_text) if new_text is not None else frozenset()
        if not self._own_postings:
            ix.postings = dict(ix.postings)
            self._own_postings = True
        for term in old_terms - new_terms:
            plist = self._own_plist(term)
            at = bisect.bisect_left(plist, i)
            if at < len(plist) and plist[at] == i:
                del plist[at]
            if not plist:
                del ix.postings[term]
        for term in new_terms - old_terms:
            plist = self._own_plist(term, create=True)
            at = bisect.bisect_left(plist, i)
            if at == len(plist) or plist[at] != i:
                plist.insert(at, i)
        ix.n_indexed += (new_text is not None) - (old_text is not None)
        if old_text is not None:
            self._text_hook_remove(node_id)
        if new_text is not None:
            self._text_hook_add(node_id, new_text)

    def _own_plist(self, term: str, *, create: bool = False) -> list[int]:
        postings = self.index.postings
        plist = postings.get(term)
        if plist is None:
            plist = postings[term] = []
            self._own_terms.add(term)
        elif term not in self._own_terms:
            plist = postings[term] = list(plist)
            self._own_terms.add(term)
        return plist

    # ----------------------------------------------------------- text-index hook
    def _fork_text_index(self, base: CanvasIndex) -> Any:
        text_index = getattr(base, "text_index", None)
        if text_index is None:
            return None
        fork = getattr(text_index, "fork", None)
        if callable(fork):
            text_index = fork()  # copy-on-write, like the rest of the index
            self.index.text_index = text_index
        return text_index

    def _text_hook_add(self, node_id: str, text: str) -> None:
        if self._text is not None:
            self._text.add_text(node_id, text)

    def _text_hook_remove(self, node_id: str) -> None:
        if self._text is not None:
            self._text.remove(node_id)
