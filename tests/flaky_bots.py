"""A bot that fails on demand, for the tests of what a failing opponent leaves behind."""


class FlakyBot:
    """Raises ``error`` while ``fail`` is true, else plays the first legal play."""

    def __init__(self, fail: bool = True, error: BaseException = RuntimeError("the bot broke")):
        self.fail = fail
        self.error = error

    def choose(self, game):
        if self.fail:
            raise self.error
        return game.legal_plays()[0]
