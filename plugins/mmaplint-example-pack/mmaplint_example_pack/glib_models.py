"""Models of GLib's file functions: what a call of each is, for mmaplint's rules (models.py).
A program that calls g_fsync() in a loop syncs per iteration as surely as one that calls
fsync(); GLib's bodies are not in the program, so the model says so."""

MODELS = {
    "g_fsync": "fsync($0)",
    "g_open": "open($0, $1, $2)",
    "g_fopen": "fopen($0, $1)",
    "g_freopen": "freopen($0, $1, $2)",
}
