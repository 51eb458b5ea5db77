#!/bin/sh
# Prints a greeting for the name given.
name="${1:-world}"
echo "Helo, ${name}!"
