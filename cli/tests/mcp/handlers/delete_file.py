import json, sys
args = json.load(sys.stdin)
json.dump({"deleted": args["path"]}, sys.stdout)
