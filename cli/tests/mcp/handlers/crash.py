import json, sys
args = json.load(sys.stdin)
sys.stderr.write("something broke: " + args.get("reason", "no reason") + "\n")
sys.exit(3)
