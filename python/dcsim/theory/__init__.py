"""Closed forms and numerical theory of the reference papers: dctcp (the DCTCP analysis), dx (DX),
dsm (the DSM paper's stability ranges), aimd (the coexistence paper's AIMD ratio), and limits
(the ranges the CLI and the analyze functions check)."""
