// The one place headroom_widgets (and the GUI shell) get OpenGL declarations from.
//
// We only need GL 1.1-era entry points (textures, glReadPixels), which GLVND's
// libOpenGL exports directly, so no loader is required. The ImGui OpenGL3 backend
// keeps its own private loader; never include this header in the same translation
// unit as imgui_impl_opengl3_loader.h.
#pragma once

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <GL/gl.h>
#include <GL/glext.h>
