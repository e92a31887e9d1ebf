# ---
# title: Unclosed header
# description: A broken notebook lesson.
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent

# %% [markdown]
# # The header above never closes: it was published as a code block

# %% [markdown]
# <!-- expect: 1: the script's header (from its first line, # ---) is never closed -->
