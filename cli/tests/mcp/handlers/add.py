import json, sys
args = json.load(sys.stdin)
json.dump({"sum": args["a"] + args["b"]}, sys.stdout)
