"""Flask extensions, created unbound here and bound to the app in create_app()."""

from flask_babel import Babel
from flask_compress import Compress
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from htmx_flask import Htmx
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """Declarative base shared by every model."""

    # Named constraints let migrations alter SQLite tables (batch mode) and drop them later.
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_N_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


# A session lives for one request; what it just committed is what it shows, so reloading
# every object after each commit would only cost queries.
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False})
migrate = Migrate()
csrf = CSRFProtect()
htmx = Htmx()
babel = Babel()
compress = Compress()
# Every limit names its own key (companion/web/limits.py: per phone and per address); the store is
# LIMITS_STORAGE_URL, set in create_app.
limiter = Limiter(key_func=get_remote_address, strategy="moving-window")
