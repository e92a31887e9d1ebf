"""What multiprocessing's fork server preloads: importing this module prepares the server for
every page it forks (:func:`lessonkit.execute.worker.serve_forks`)."""

from lessonkit.execute.worker import serve_forks

serve_forks()
