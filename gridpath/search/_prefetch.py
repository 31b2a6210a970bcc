"""A cache prefetch hint for the compiled kernels (LLVM's ``llvm.prefetch``).

``prefetch(array, i)`` asks the CPU to start loading ``array[i]`` (row ``i`` of a 2-D
array) into cache and returns at once; it changes nothing and cannot fault, whatever
``i`` is. A* uses it to fetch the scratch rows of the cells above and below the node it
expands while it works on the row in between: on the Moving AI 1-wide maze, with the
cache cold (as after another solver ran), A* took about 0.8x the time. JPS+ fetches the
jump-distance rows of the nodes it offers, read when they are expanded (0.9x on the large
Dragon Age maps with a cold cache). Both figures are one-off A/B runs, not benchmark
commands; with warm caches neither hint changed the time.
"""

from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

# LLVM 15 and later name the intrinsic by its opaque pointer type; older ones by i8*.
_NAME = "llvm.prefetch.p0" if llvm.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"
_READ, _KEEP, _DATA = 0, 3, 1  # a read, keep in all cache levels, data (not instructions)


@intrinsic
def prefetch(typingctx, array, index):
    """Hint: ``array[index]`` (the first item of row ``index`` if 2-D) will be read soon."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        view = context.make_array(array_type)(context, builder, args[0])
        at = [context.cast(builder, args[1], index_type, types.intp)]
        at += [context.get_constant(types.intp, 0)] * (array_type.ndim - 1)
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, at)
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32]),
            _NAME,
        )
        address = builder.bitcast(pointer, byte_pointer)
        builder.call(hint, [address, int32(_READ), int32(_KEEP), int32(_DATA)])
        return context.get_dummy_value()

    return types.void(array, index), codegen
