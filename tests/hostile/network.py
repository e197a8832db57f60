import socket


def add_one(x):
    socket.create_connection(("127.0.0.1", 9), timeout=0.5)
    return x + 1
