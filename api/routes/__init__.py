"""The /v1 routers, gathered into one."""
from fastapi import APIRouter

from . import compilations, kernels, models, targets

api_router = APIRouter(prefix="/v1")
for _module in (models, targets, compilations, kernels):
    api_router.include_router(_module.router)
