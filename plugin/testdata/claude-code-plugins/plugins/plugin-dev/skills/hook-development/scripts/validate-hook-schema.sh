#!/bin/bash
# Fixture: checks a hooks.json parses.
jq empty "$1"
