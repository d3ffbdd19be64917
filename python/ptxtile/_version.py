__version__ = "0.1.0"  # = PT_VERSION of include/ptxtile.h (tested)
