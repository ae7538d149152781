# env.sh - the bundle's environment: `. /path/to/bundle/env.sh` (bash), or
# PB_BUNDLE=/path/to/bundle; . "$PB_BUNDLE/env.sh" (any sh).  Idempotent.
# pack.sh copies it into the bundle's top folder; bin/* source it.
# shellcheck shell=sh
if [ -z "${PB_BUNDLE:-}" ] && [ -n "${BASH_SOURCE:-}" ]; then
    # shellcheck disable=SC3028,SC3054 # bash only, guarded
    PB_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
fi
export PB_BUNDLE
if [ "${PB_ENV_DONE:-}" != "$PB_BUNDLE" ]; then
    export PB_ENV_DONE="$PB_BUNDLE"
    # Open MPI 4.1 relocated: components, help texts, mca-params.conf
    export OPAL_PREFIX="$PB_BUNDLE" OPAL_SYSCONFDIR="$PB_BUNDLE/etc"
    # PMIx 4.2 (Open MPI's ext3x): its prefix and its 3 plugins
    export PMIX_PREFIX="$PB_BUNDLE/pmix2"
    export PMIX_MCA_mca_base_component_path="$PB_BUNDLE/pmix2/lib/pmix"
    export PMIX_PKGDATADIR="$PB_BUNDLE/pmix2/share/pmix" # its help texts
    # hwloc's PCI plugin (GPUs and NICs), PLplot's svg device and fonts
    export HWLOC_PLUGINS_PATH="$PB_BUNDLE/lib/hwloc"
    export PLPLOT_DRV_DIR="$PB_BUNDLE/lib/plplot/drivers" PLPLOT_LIB="$PB_BUNDLE/share/plplot"
    # The bundle's programs find its lib/ by their RPATH ($ORIGIN/..., every
    # Debian file patched by pack.sh), so lib/ stays off LD_LIBRARY_PATH, where
    # its older libraries would reach this machine's own programs too.  What
    # LD_LIBRARY_PATH gets: the folders of NCCL and cuBLAS on this machine
    # (run-on-gpu.sh writes them to $PB_BUNDLE/gpu-libdirs; PB_GPU_LIBDIRS
    # overrides).  That is the loader's path parbench's dlopen of
    # libnccl.so.2 searches, and where nccl-tests' programs find theirs.
    if [ -z "${PB_GPU_LIBDIRS:-}" ] && [ -r "$PB_BUNDLE/gpu-libdirs" ]; then
        PB_GPU_LIBDIRS=$(cat "$PB_BUNDLE/gpu-libdirs")
    fi
    if [ -n "${PB_GPU_LIBDIRS:-}" ]; then
        export LD_LIBRARY_PATH="$PB_GPU_LIBDIRS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
    export PATH="$PB_BUNDLE/bin:$PATH"
    # one host, shared memory; what the project's own tests set (tests/CMakeLists.txt)
    export OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader}" OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
    export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
    # Open MPI 4 will not start, even on one node, without a remote agent on
    # the PATH ("plm_rsh_agent: ssh : rsh ... could not be found"): with none,
    # name one that exists; only launches on other nodes would need a real one
    if [ -z "${OMPI_MCA_plm_rsh_agent+set}" ] && ! command -v ssh >/dev/null 2>&1 &&
       ! command -v rsh >/dev/null 2>&1; then
        export OMPI_MCA_plm_rsh_agent=false
    fi
    if [ "$(id -u)" = 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
fi
