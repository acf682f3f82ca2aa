import json, sys, time
args = json.load(sys.stdin)
time.sleep(args["seconds"])
print("done after", args["seconds"], "seconds")
