"""Closed forms and numerical theory of the reference papers: dctcp, dx, aimd."""
