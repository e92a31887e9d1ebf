"""Preloaded by multiprocessing's fork server: sets it up for the pages it forks."""

from lessonkit.execute.worker import serve_forks

serve_forks()
