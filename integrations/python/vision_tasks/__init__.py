"""Python adapters for swift-vision-tasks' `vision-tasks worker`: a client, Ray Data and Spark functions, and a
one-command batch job (`python -m vision_tasks.batch`). Pure Python; Ray, Spark and pandas are imported only by the
modules that use them."""

from .worker import IMAGE_EXTENSIONS, ROW_FIELDS, VIDEO_EXTENSIONS, Worker, WorkerDied, find_binary, output_line, request_for

__all__ = ["Worker", "WorkerDied", "find_binary", "request_for", "output_line", "ROW_FIELDS", "IMAGE_EXTENSIONS",
           "VIDEO_EXTENSIONS"]
