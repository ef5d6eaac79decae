"""What can go wrong when asking for a forecast, as exceptions the callers can tell apart."""

from __future__ import annotations


class WeatherError(Exception):
    """Base of every weather failure."""


class UnknownPlaceError(WeatherError):
    """No place matched the name; the user should be asked which place they meant."""

    def __init__(self, place: str) -> None:
        super().__init__(
            f"「{place}」という場所が見つかりませんでした。市区町村名か都道府県名で教えてください。"
            f" (I could not find a place called {place!r}; please name a city or prefecture.)"
        )
        self.place = place


class WeatherUnavailableError(WeatherError):
    """The forecast provider is down, slow or answered nonsense; the message is for the user."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            "天気予報サービスに接続できませんでした。数分後にもう一度試してください。"
            " (The weather service is not answering right now; please try again in a few minutes.)"
        )
        # For the log only: the user gains nothing from a status code.
        self.detail = detail


class InvalidDayError(WeatherError, ValueError):
    """The requested day is not one the forecast covers; the message says which days are."""
