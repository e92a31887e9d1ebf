# ---
# title: Percent
# description: A broken notebook lesson.
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
# ---

# %% [markdown]
# # Metadata of the wrong type

# %% [markdown] {"jupyter": 5}
# jupytext (through nbformat's schema) refuses this cell: no schema dump, its line.

# %% [markdown]
# <!-- expect: 16: jupytext cannot read this cell: 5 is not of type 'object' -->
