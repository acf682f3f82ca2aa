import json, sys
args = json.load(sys.stdin)
json.dump({"received": args}, sys.stdout)
