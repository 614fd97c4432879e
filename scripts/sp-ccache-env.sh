# sp-ccache-env.sh — sourced by the build scripts (setup.sh,
# setup-libtorch-current.sh, gpu-check --prepare) from the checkout's root.
# ccache hashes a compile command as written; CMake writes absolute paths, so
# without this a fresh clone in another folder (as CI makes one) misses every
# object compiled before. With the checkout's parent as base_dir those paths are
# rewritten relative to the build directory, which is the same in every clone,
# and the build directory's own path is left out of the hash. System headers
# stay absolute (ccache's advice). The caller's own settings win.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# Several build trees (build, build-asan, build-libtorch-current, build-gpu-obj)
# share the cache: ccache's default 5 GB evicts between them.
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
