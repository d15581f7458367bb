"""The pack service: ``python -m kindgi.pack serve`` (see ``kindgi.pack.serving.cli``).

Everything here is internal to the SDK; pack code never imports it.
"""
