import json, os, sys, time
args = json.load(sys.stdin)
# Tests that check the handler is killed learn its pid from a file in this directory.
pid_dir = os.environ.get("TOOLDEF_TEST_PID_DIR")
if pid_dir:
    with open(os.path.join(pid_dir, "slow-%d.pid" % os.getpid()), "w") as f:
        f.write(str(os.getpid()))
time.sleep(args["seconds"])
print("done after", args["seconds"], "seconds")
