# Keep `python -m skdpgen` from running when pytest imports modules for doctests.
collect_ignore = ["skdpgen/__main__.py"]
