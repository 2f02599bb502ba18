"""Reinforcement-learning environments over autodup's resumable table (the ``env`` extra).

- :class:`AutodupEnv` (Gymnasium): one learning seat, scripted bots at the others; registered as
  ``autodup/Set4-v0`` (set4) and ``autodup/Autochess-v0`` (any configuration: ``config=`` a shipped name or a
  YAML file's path).
- :class:`AutodupVectorEnv` (Gymnasium vector): many such tables stepped in one compiled call; also
  ``gymnasium.make_vec("autodup/Set4-v0", num_envs=N, vectorization_mode="vector_entry_point")``.
- :func:`env`, :func:`parallel_env`, :func:`raw_env` (PettingZoo): every seat an agent, AEC or Parallel.

Observations, actions and rewards are described in :mod:`autodup.env.spaces` and
:mod:`autodup.game.observation`. Install with ``pip install "autodup[env]"``.
"""

from __future__ import annotations

try:
    import gymnasium
    import pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is installed in the test environment
    raise ImportError(f"autodup.env needs the env extra ({error.name} is missing): "
                      "pip install \"autodup[env]\"") from None

from .multi import AutodupAECEnv, AutodupParallelEnv, env, parallel_env, raw_env
from .single import AutodupEnv
from .spaces import REWARDS
from .vector import AutodupVectorEnv

__all__ = ["AutodupEnv", "AutodupVectorEnv", "AutodupAECEnv", "AutodupParallelEnv", "env", "parallel_env",
           "raw_env", "REWARDS", "ENVIRONMENT_IDS"]

ENVIRONMENT_IDS = ("autodup/Set4-v0", "autodup/Autochess-v0")


def _register() -> None:
    for environment_id, kwargs in zip(ENVIRONMENT_IDS, ({"config": "set4"}, {})):
        if environment_id not in gymnasium.registry:
            gymnasium.register(environment_id, entry_point="autodup.env.single:AutodupEnv",
                               vector_entry_point="autodup.env.vector:AutodupVectorEnv", kwargs=kwargs,
                               disable_env_checker=False)


_register()
