"""The environment the sptune.torch test modules run in: kernels compile
into a temporary SPTUNE_CACHE, SPTUNE_AUTOTUNE is unset, and both are
restored (and the directory removed) when the module ends."""

import os
import shutil
import tempfile
import warnings


class TemporaryCache:
    """setUpModule calls enter(st), tearDownModule exit(); `path` is the
    cache directory while entered."""

    _NAMES = ("SPTUNE_CACHE", "SPTUNE_AUTOTUNE")

    def __init__(self, prefix):
        self.prefix = prefix
        self.path = None
        self._saved = {}

    def enter(self, st):
        warnings.filterwarnings("ignore",
                                message=".*Sparse CSR tensor support.*")
        self.path = tempfile.mkdtemp(prefix=self.prefix)
        for name in self._NAMES:
            self._saved[name] = os.environ.get(name)
        os.environ["SPTUNE_CACHE"] = self.path
        os.environ.pop("SPTUNE_AUTOTUNE", None)
        st.clear_memory_cache()

    def exit(self):
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self.path:
            shutil.rmtree(self.path, ignore_errors=True)
