"""What lessons compute: plain numpy, matplotlib and tiktoken code to read beside a lesson."""
