"""dcsim: a laboratory for data-center congestion control.

Packet-level simulation (Rust engine), fluid models and theory, and reproducible experiments
of the reference papers, side by side.
"""

__version__ = "0.1.0"
