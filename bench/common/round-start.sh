# bench/common/round-start.sh NAME — sourced by the device rounds (bench/next/*.sh,
# bench/mamba2/next/*.sh) on the GPU machine, from the repository root, OUT set: R=$OUT/NAME
# with the GPU's clocks in R/gpu.txt, T0 the start, and CLI the core + CLI built without the GUI
# (.dev/build); the round ends here when the build fails.
R=$OUT/$1; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
timeout 240 sh -c 'meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build' > "$R/build.log" 2>&1 || { echo "CLI build failed"; tail -20 "$R/build.log"; exit 1; }
CLI=$(pwd)/.dev/build/cli/pipethreader-cli
echo "cli $(( $(date +%s) - T0 )) s"
