"""sptune's Python side: dataset utilities, reports and plots.

Use Debian's interpreter (/usr/bin/python3) with python3-numpy,
python3-matplotlib; there is no PyPI on these machines.
"""
