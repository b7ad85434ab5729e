"""Entry point: builds the app with the factory; `python app.py` serves it."""

from companion import create_app

app = create_app()

if __name__ == "__main__":
    from companion.server.serve import serve

    serve(app)
