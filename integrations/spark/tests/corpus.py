"""Input lists for the Spark tests and benchmark: the fixtures, and N paths made from them."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FIXTURES = os.path.join(REPO, "Tests", "Fixtures")


def fixture_paths():
    """Every file in Tests/Fixtures (hostile ones included), sorted, as absolute paths."""
    return sorted(
        os.path.join(FIXTURES, name)
        for name in os.listdir(FIXTURES)
        if os.path.isfile(os.path.join(FIXTURES, name))
    )


def odd_paths(directory):
    """Inputs that must become error rows or test the list's separators, made in ``directory``.

    A missing file, a folder, an empty path, a null, ``-``, and real files whose names hold a
    newline, a carriage return, a leading dash, spaces and non-ASCII letters.
    """
    source = os.path.join(FIXTURES, "tone.ogg")
    names = ["line\nbreak.ogg", "carriage\r", "-dash.ogg", "with space.ogg", "ünïcødé ✓.ogg"]
    made = []
    for name in names:
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            os.symlink(source, path)
        made.append(path)
    return made + [os.path.join(directory, "missing.mp4"), directory, "", None, "-"]


def many_paths(directory, count):
    """``count`` paths to fixtures in ``directory``: hard links, every 7th a symbolic link, every
    500th missing; names numbered so the list order is the numbering."""
    fixtures = fixture_paths()
    os.makedirs(directory, exist_ok=True)
    paths = []
    for i in range(count):
        source = fixtures[i % len(fixtures)]
        path = os.path.join(directory, f"{i:06d}_{os.path.basename(source)}")
        if i % 500 == 499:
            path += ".missing"
        elif not os.path.lexists(path):
            if i % 7 == 0:
                os.symlink(source, path)
            else:
                try:
                    os.link(source, path)
                except OSError:  # another file system
                    os.symlink(source, path)
        paths.append(path)
    return paths
